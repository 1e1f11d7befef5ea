import { parseDuration } from '../../../../../shared/workflow-rules.ts';
import type { StepExecutor } from './step-executor.ts';

export const wait: StepExecutor<'wait'> = {
  type: 'wait',
  execute: (s, { now }) => ({
    kind: 'wait',
    for: 'timer',
    until: now + parseDuration(s.duration)!,
  }),
};
