import { literalTargetRefusal, OutboundError } from '../../../net/outbound.ts';
import type { StepExecutor } from './step-executor.ts';

// The call itself is the engine's async job (workflow.webhook): at least once across a network,
// retried, its attempts counted; the run waits for it.
export const webhook: StepExecutor<'webhook'> = {
  type: 'webhook',
  execute: () => ({ kind: 'webhook' }),
  // A URL the workspace may call, as webhooks check it: an IP literal in any spelling, or a
  // local-only name; a name that must be resolved is checked when called.
  checkScope(s, at, { refuse, allowPrivate }) {
    let refusal: string | null;
    try {
      refusal = literalTargetRefusal(s.url, allowPrivate);
    } catch (e) {
      if (!(e instanceof OutboundError)) throw e;
      refusal = e.message;
    }
    if (refusal) {
      refuse(
        `${at}.url`,
        `${refusal}; allow private webhook targets in the workspace settings to use it`,
      );
    }
  },
};
