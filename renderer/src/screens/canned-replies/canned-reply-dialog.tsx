import { useId, useState, type FormEvent } from 'react';
import {
  CANNED_TEXT_MAX,
  SHORTCUT_MAX,
  SHORTCUT_PATTERN,
  SHORTCUT_RULE,
} from '../../../../shared/canned-replies.ts';
import { parsePlaceholders, PLACEHOLDER_HELP } from '../../../../shared/placeholders.ts';
import type { CannedReply } from '../../../../shared/schemas/index.ts';
import { ApiRequestError } from '../../api/client.ts';
import { FormDialog } from '../../components/form-dialog.tsx';
import { useAction } from '../../components/use-action.ts';
import { useCannedReplies } from '../../stores/canned-replies.ts';
import { notify } from '../../stores/toasts.ts';
import { FilledText, SAMPLE_CONTACT, SAMPLE_DESCRIPTION } from './canned-reply-text.tsx';
import './canned-replies.css';

type Field = 'shortcut' | 'text';

/** The same rules the core applies (shared/), checked before a request is made. */
function check(shortcut: string, text: string): Partial<Record<Field, string>> {
  const errors: Partial<Record<Field, string>> = {};
  if (!SHORTCUT_PATTERN.test(shortcut)) errors.shortcut = `The ${SHORTCUT_RULE}.`;
  if (!text.trim()) errors.text = 'Write the reply.';
  else if (text.length > CANNED_TEXT_MAX) errors.text = `At most ${CANNED_TEXT_MAX} characters.`;
  else {
    const { unknown } = parsePlaceholders(text);
    if (unknown.length > 0) {
      errors.text = `Unknown placeholder ${unknown[0]}: use ${PLACEHOLDER_HELP}.`;
    }
  }
  return errors;
}

/** Creates a canned reply, or edits one; the preview fills it for a sample contact. */
export function CannedReplyDialog({
  reply,
  onClose,
}: {
  reply: CannedReply | null;
  onClose: () => void;
}) {
  const create = useCannedReplies((s) => s.create);
  const update = useCannedReplies((s) => s.update);
  const [shortcut, setShortcut] = useState(reply?.shortcut ?? '');
  const [text, setText] = useState(reply?.text ?? '');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const { busy, error, run } = useAction();
  const id = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const found = check(shortcut, text);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    await run(
      async () => {
        const body = { shortcut, text };
        const saved = reply ? await update(reply.id, body) : await create(body);
        notify('success', `Saved /${saved.shortcut}.`);
        onClose();
      },
      (e) => {
        // The core's answer about one field goes under that field.
        if (e instanceof ApiRequestError && (e.param === 'shortcut' || e.param === 'text')) {
          setErrors({ [e.param]: e.message });
          return true;
        }
        return false;
      },
    );
  };

  const fieldError = (field: Field) =>
    errors[field] ? (
      <p className="field-error" id={`${id}-${field}-error`} data-testid={`canned-${field}-error`}>
        {errors[field]}
      </p>
    ) : null;

  return (
    <FormDialog
      title={reply ? `Edit /${reply.shortcut}` : 'New canned reply'}
      onClose={onClose}
      onSubmit={submit}
      submitLabel={busy ? 'Saving…' : 'Save'}
      submitTestId="canned-save"
      busy={busy}
      error={error}
      size="large"
      testId="canned-dialog"
    >
      <div className="canned-editor">
        <div className="canned-editor-fields">
          <div className="field">
            <label htmlFor={`${id}-shortcut`}>Shortcut</label>
            <div className="canned-shortcut-input">
              <span aria-hidden="true">/</span>
              <input
                id={`${id}-shortcut`}
                className="input"
                value={shortcut}
                maxLength={SHORTCUT_MAX}
                autoComplete="off"
                spellCheck={false}
                placeholder="thanks"
                aria-invalid={errors.shortcut ? true : undefined}
                aria-describedby={`${id}-shortcut-hint${errors.shortcut ? ` ${id}-shortcut-error` : ''}`}
                onChange={(event) => setShortcut(event.target.value.toLowerCase())}
                data-testid="canned-shortcut"
              />
            </div>
            <p className="hint" id={`${id}-shortcut-hint`}>
              Type <kbd className="kbd">/</kbd> and this in the inbox composer: up to {SHORTCUT_MAX}{' '}
              lowercase letters, digits, “_” and “-”.
            </p>
            {fieldError('shortcut')}
          </div>
          <div className="field">
            <label htmlFor={`${id}-text`}>Text</label>
            <textarea
              id={`${id}-text`}
              className="input textarea canned-text-input"
              rows={7}
              value={text}
              maxLength={CANNED_TEXT_MAX}
              aria-invalid={errors.text ? true : undefined}
              aria-describedby={`${id}-text-hint${errors.text ? ` ${id}-text-error` : ''}`}
              onChange={(event) => setText(event.target.value)}
              data-testid="canned-text"
            />
            <p className="hint" id={`${id}-text-hint`}>
              Placeholders are filled from the conversation’s contact when you insert the reply:{' '}
              <code>{PLACEHOLDER_HELP}</code>.
            </p>
            {fieldError('text')}
          </div>
        </div>
        <section className="canned-preview" aria-labelledby={`${id}-preview`}>
          <h3 id={`${id}-preview`} className="canned-preview-title">
            Preview
          </h3>
          <p className="hint">For a sample contact: {SAMPLE_DESCRIPTION}</p>
          <div className="canned-preview-bubble" data-testid="canned-preview">
            {text.trim() ? (
              <FilledText text={text} contact={SAMPLE_CONTACT} />
            ) : (
              <span className="muted">The reply appears here as you type.</span>
            )}
          </div>
          <p className="hint">
            A placeholder the contact has no value for stays in the reply, selected, and the reply
            cannot be sent until you replace it.
          </p>
        </section>
      </div>
    </FormDialog>
  );
}
