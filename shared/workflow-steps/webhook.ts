import type { WorkflowProblem } from '../workflow-rules.ts';
import type { StepBase, StepKind } from './step-kind.ts';

export const WEBHOOK_METHODS = ['POST', 'PUT', 'PATCH'] as const;
export type WebhookMethod = (typeof WEBHOOK_METHODS)[number];
/** A webhook step's calls before it fails (then `onError`, or the run fails). */
export const WEBHOOK_ATTEMPTS = 5;

/** Calls your server, signed; its JSON answer is `{{steps.ID.…}}` later. */
export interface WebhookStep extends StepBase<'webhook'> {
  url: string;
  method?: string;
  body?: unknown;
  onError?: string;
}

export const webhook: StepKind<WebhookStep> = {
  type: 'webhook',
  label: 'Call a webhook',
  fields: ['url', 'method', 'body', 'onError'],
  required: ['url'],
  validate(step, { at, strings, refersTo }) {
    const out: WorkflowProblem[] = [];
    let ok: boolean;
    try {
      ok = ['http:', 'https:'].includes(new URL(step.url ?? '').protocol);
    } catch {
      ok = false;
    }
    if (!ok) out.push({ param: `${at}.url`, message: 'url is an http(s) URL' });
    if (
      step.method !== undefined &&
      !(WEBHOOK_METHODS as readonly string[]).includes(step.method)
    ) {
      out.push({ param: `${at}.method`, message: 'method is POST, PUT or PATCH' });
    }
    if (step.body !== undefined) out.push(...strings(`${at}.body`, JSON.stringify(step.body)));
    out.push(...refersTo(`${at}.onError`, step.onError));
    return out;
  },
};
