import { parseDuration } from '../../../../../shared/workflow-rules.ts';
import type { StepExecutor } from './step-executor.ts';

// The reply (or the timeout, then `onTimeout`) resumes the run: the engine's reply listener and
// its timer job.
export const waitForReply: StepExecutor<'wait_for_reply'> = {
  type: 'wait_for_reply',
  execute: (s, { now }) => ({ kind: 'wait', for: 'reply', until: now + parseDuration(s.timeout)! }),
};
