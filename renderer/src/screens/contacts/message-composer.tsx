import { useState, type FormEvent } from 'react';
import type { Template } from '../../../../shared/schemas/index.ts';
import { errorMessage } from '../../api/client.ts';
import { SendIcon } from '../../components/icons.tsx';
import { fillVariables } from '../../components/template-text.ts';
import { formatInline } from '../../components/whatsapp-preview.tsx';
import { useApprovedTemplates } from '../../stores/approved-templates.ts';
import { useMessages } from '../../stores/messages.ts';
import { hrefFor } from '../../stores/route.ts';
import { selectIsTestMode, useSession } from '../../stores/session.ts';

type Mode = 'template' | 'text';

/** The API's limit for free text (design.md §4 Sending). */
const TEXT_MAX = 4096;

const textOf = (template: Template, type: 'HEADER' | 'BODY' | 'FOOTER'): string =>
  template.components.find((c) => c.type === type)?.text ?? '';

function TemplateForm() {
  const approved = useApprovedTemplates((s) => s.approved);
  const approvedStatus = useApprovedTemplates((s) => s.status);
  const sendTemplate = useMessages((s) => s.sendTemplate);
  const [templateId, setTemplateId] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const template = approved.find((t) => t.id === templateId) ?? null;
  const count = template?.variableCount ?? 0;
  const numbers = Array.from({ length: count }, (_, i) => String(i + 1));
  const missing = numbers.filter((n) => !values[n]?.trim());

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!template) return;
    setError(null);
    if (missing.length > 0) {
      setError(`Fill in ${missing.map((n) => `{{${n}}}`).join(', ')}.`);
      return;
    }
    setBusy(true);
    try {
      const variables = Object.fromEntries(numbers.map((n) => [n, values[n] ?? '']));
      await sendTemplate(template.name, variables);
      setValues({});
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  if (approvedStatus === 'ready' && approved.length === 0) {
    return (
      <p className="composer-note" data-testid="no-approved-templates">
        No approved templates yet. <a href={hrefFor('templates')}>Create one in Templates</a>; once
        it is approved it can start the conversation.
      </p>
    );
  }

  return (
    <form
      className="composer-form"
      onSubmit={submit}
      noValidate
      data-testid="compose-template-form"
    >
      <select
        className="select"
        aria-label="Template"
        value={templateId}
        onChange={(event) => {
          setTemplateId(event.target.value);
          setError(null);
        }}
        data-testid="compose-template"
      >
        <option value="">
          {approvedStatus === 'loading' ? 'Loading templates…' : 'Choose an approved template…'}
        </option>
        {approved.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name} · {t.language}
          </option>
        ))}
      </select>
      {template ? (
        <>
          {numbers.length > 0 ? (
            <div className="composer-vars">
              {numbers.map((n) => (
                <label key={n} className="composer-var">
                  <code>{`{{${n}}}`}</code>
                  <input
                    className="input"
                    value={values[n] ?? ''}
                    onChange={(event) => setValues((v) => ({ ...v, [n]: event.target.value }))}
                    aria-label={`Value for {{${n}}}`}
                    data-testid={`compose-var-${n}`}
                  />
                </label>
              ))}
            </div>
          ) : null}
          <div className="composer-preview" data-testid="compose-preview">
            {textOf(template, 'HEADER') ? (
              <strong>{fillVariables(textOf(template, 'HEADER'), values)}</strong>
            ) : null}
            <span>{formatInline(fillVariables(textOf(template, 'BODY'), values))}</span>
            {textOf(template, 'FOOTER') ? (
              <span className="muted small">{textOf(template, 'FOOTER')}</span>
            ) : null}
          </div>
        </>
      ) : null}
      {error ? (
        <p className="form-error" role="alert" data-testid="compose-error">
          {error}
        </p>
      ) : null}
      <div className="composer-actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={!template || busy}
          data-testid="send-template"
        >
          <SendIcon />
          {busy ? 'Sending…' : 'Send template'}
        </button>
      </div>
    </form>
  );
}

function TextForm({ windowOpen }: { windowOpen: boolean }) {
  const sendText = useMessages((s) => s.sendText);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    if (!text.trim() || busy) return;
    setError(null);
    setBusy(true);
    try {
      await sendText(text);
      setText('');
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="composer-form" onSubmit={submit} noValidate data-testid="compose-text-form">
      {!windowOpen ? (
        <p className="composer-note" data-testid="window-closed-note">
          Free text can only be sent within 24 hours of the contact&apos;s last message. Send a
          template to restart the conversation.
        </p>
      ) : null}
      <div className="composer-text-row">
        <textarea
          className="input textarea composer-textarea"
          rows={2}
          value={text}
          maxLength={TEXT_MAX}
          disabled={!windowOpen}
          placeholder={windowOpen ? 'Type a message' : 'Service window closed'}
          aria-label="Message"
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) {
              event.preventDefault();
              void submit();
            }
          }}
          data-testid="compose-text"
        />
        <button
          type="submit"
          className="button button-primary composer-send"
          disabled={!windowOpen || !text.trim() || busy}
          aria-label="Send message"
          data-testid="send-text"
        >
          <SendIcon />
        </button>
      </div>
      {error ? (
        <p className="form-error" role="alert" data-testid="compose-error">
          {error}
        </p>
      ) : null}
    </form>
  );
}

function SimulateReply() {
  const simulateInbound = useMessages((s) => s.simulateInbound);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await simulateInbound(text.trim());
      setText('');
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="simulate-reply" onSubmit={submit} noValidate data-testid="simulate-reply">
      <span className="badge badge-test">Test</span>
      <input
        className="input"
        value={text}
        placeholder="Simulate a reply from the contact (opens the 24 h window)"
        aria-label="Simulated reply from the contact"
        onChange={(event) => setText(event.target.value)}
        data-testid="simulate-inbound-text"
      />
      <button
        type="submit"
        className="button button-small"
        disabled={!text.trim() || busy}
        data-testid="simulate-inbound-send"
      >
        {busy ? 'Sending…' : 'Simulate reply'}
      </button>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}

export function MessageComposer({ windowOpen }: { windowOpen: boolean }) {
  const testMode = useSession(selectIsTestMode);
  const [mode, setMode] = useState<Mode>(windowOpen ? 'text' : 'template');

  return (
    <div className="composer" data-testid="composer">
      <div className="tabs composer-tabs" role="tablist">
        <button
          type="button"
          role="tab"
          aria-selected={mode === 'template'}
          className={`tab${mode === 'template' ? ' selected' : ''}`}
          onClick={() => setMode('template')}
          data-testid="compose-mode-template"
        >
          Template
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={mode === 'text'}
          className={`tab${mode === 'text' ? ' selected' : ''}`}
          onClick={() => setMode('text')}
          data-testid="compose-mode-text"
        >
          Free text
          {!windowOpen ? <span className="tab-count">closed</span> : null}
        </button>
      </div>
      {mode === 'template' ? <TemplateForm /> : <TextForm windowOpen={windowOpen} />}
      {testMode ? <SimulateReply /> : null}
    </div>
  );
}
