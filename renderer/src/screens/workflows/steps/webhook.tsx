import { WEBHOOK_METHODS } from '../../../../../shared/workflow-steps/webhook.ts';
import { controlProps, Field, StepTargetField, TEMPLATE_STRING_HINT } from '../step-fields.tsx';
import type { StepEditor, StepFieldsProps } from './step-editor.ts';

export const webhook: StepEditor<'webhook'> = {
  type: 'webhook',
  hint: 'Calls your server (signed with the workflow’s secret); its JSON answer can be used later.',
  idPrefix: 'webhook',
  defaults: { url: '', method: 'POST' },
  Fields: WebhookFields,
  paths: (step, then, path) =>
    step.onError
      ? [{ ...then, label: 'Succeeded' }, path('If it keeps failing', step.onError, 'onError')]
      : [then],
  // The body is edited as JSON text; it is sent only when it parses.
  toDraft: (step) =>
    step.body !== undefined ? { bodyText: JSON.stringify(step.body, null, 2) } : {},
  toStep(draft, out) {
    delete out.body;
    const parsed = parseBody(draft.bodyText);
    if (parsed.ok && parsed.body !== undefined) out.body = parsed.body;
    return out;
  },
  draftProblems: (draft, at) =>
    parseBody(draft.bodyText).ok
      ? []
      : [{ param: `${at}.body`, message: 'the body is not valid JSON' }],
};

function WebhookFields({ step, field, set, target }: StepFieldsProps) {
  const url = field('url');
  const method = field('method');
  const body = field('body');
  return (
    <>
      <div className="wf-field-row">
        <Field {...url} label="URL">
          <input
            className={`input${url.error ? ' invalid' : ''}`}
            value={step.url ?? ''}
            placeholder="https://example.com/hooks/parley"
            onChange={(e) => set('url', { url: e.target.value })}
            {...controlProps(url.id, url.error)}
          />
        </Field>
        <Field {...method} label="Method">
          <select
            className="select"
            value={step.method ?? 'POST'}
            onChange={(e) => set('method', { method: e.target.value })}
            {...controlProps(method.id, method.error)}
          >
            {WEBHOOK_METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </Field>
      </div>
      <Field
        {...body}
        label={
          <>
            Body (JSON) <span className="optional">(optional)</span>
          </>
        }
        hint={TEMPLATE_STRING_HINT}
      >
        <textarea
          className={`input textarea mono${body.error ? ' invalid' : ''}`}
          rows={4}
          spellCheck={false}
          value={step.bodyText ?? ''}
          placeholder={'{ "phone": "{{contact.phone}}", "cart": "{{payload.cartId}}" }'}
          onChange={(e) => set('body', { bodyText: e.target.value })}
          {...controlProps(body.id, body.error)}
        />
      </Field>
      <StepTargetField
        {...target('onError')}
        label="If it keeps failing, go to"
        hint="Tried up to 5 times; a 2xx answer within 10 s succeeds."
        emptyLabel="Fail the run"
      />
    </>
  );
}

type BodyResult = { ok: true; body: unknown } | { ok: false };

/** The body as typed: blank is none. */
function parseBody(text: string | undefined): BodyResult {
  if (text === undefined || text.trim() === '') return { ok: true, body: undefined };
  try {
    return { ok: true, body: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
