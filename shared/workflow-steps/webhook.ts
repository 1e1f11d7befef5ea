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
  missing: { url: 'Give the web address to call' },
  validate(step, { at, strings, refersTo }) {
    const out: WorkflowProblem[] = [];
    let ok: boolean;
    try {
      ok = ['http:', 'https:'].includes(new URL(step.url ?? '').protocol);
    } catch {
      ok = false;
    }
    // A missing url is the registry's "Give the web address to call".
    if (!ok && step.url !== undefined && step.url !== '')
      out.push({
        param: `${at}.url`,
        message: 'Give a web address that starts with https:// or http://',
      });
    if (
      step.method !== undefined &&
      !(WEBHOOK_METHODS as readonly string[]).includes(step.method)
    ) {
      out.push({ param: `${at}.method`, message: 'Choose POST, PUT or PATCH' });
    }
    if (step.body !== undefined) out.push(...strings(`${at}.body`, JSON.stringify(step.body)));
    out.push(...refersTo(`${at}.onError`, step.onError));
    return out;
  },
};
