import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { Message } from '../../../../shared/schemas/index.ts';
import { FormError } from '../../components/form-error.tsx';
import { SendIcon } from '../../components/icons.tsx';
import { Tab } from '../../components/tab.tsx';
import { ChatText } from '../../components/chat-text.tsx';
import {
  SendTemplateButton,
  TemplateSelect,
  useTemplateVariables,
  VariableInputs,
} from '../../components/template-picker.tsx';
import { componentText, fillVariables } from '../../components/template-text.ts';
import { useAction } from '../../components/use-action.ts';
import { useApprovedTemplates } from '../../stores/approved-templates.ts';
import { useMessages } from '../../stores/messages.ts';
import { useContactQuote } from '../../stores/reply-context.ts';
import { hrefFor } from '../../stores/route.ts';
import { selectIsTestMode, useSession } from '../../stores/session.ts';
import { QuoteBox, quoteWaitsBecause } from '../inbox/quote-preview.tsx';

type Mode = 'template' | 'text';

/** The API's limit for free text (README "API"). */
const TEXT_MAX = 4096;

function TemplateForm() {
  const approved = useApprovedTemplates((s) => s.approved);
  const approvedStatus = useApprovedTemplates((s) => s.status);
  const sendTemplate = useMessages((s) => s.sendTemplate);
  const [templateId, setTemplateId] = useState('');
  const { busy, error, setError, run } = useAction();

  const template = approved.find((t) => t.id === templateId) ?? null;
  const { values, setValues, numbers, missingError } = useTemplateVariables(template);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!template) return;
    if (missingError) return setError(missingError);
    await run(async () => {
      const variables = Object.fromEntries(numbers.map((n) => [n, values[n] ?? '']));
      await sendTemplate(template.name, variables);
      setValues({});
    });
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
      <TemplateSelect
        templates={approved}
        value={templateId}
        onChange={(id) => {
          setTemplateId(id);
          setError(null);
        }}
        loading={approvedStatus === 'loading'}
        testId="compose-template"
      />
      {template ? (
        <>
          {numbers.length > 0 ? (
            <div className="composer-vars">
              <VariableInputs
                numbers={numbers}
                values={values}
                onChange={setValues}
                testIdPrefix="compose-var"
              />
            </div>
          ) : null}
          <div className="composer-preview" data-testid="compose-preview">
            {componentText(template, 'HEADER') ? (
              <strong>{fillVariables(componentText(template, 'HEADER'), values)}</strong>
            ) : null}
            <span>
              <ChatText text={fillVariables(componentText(template, 'BODY'), values)} />
            </span>
            {componentText(template, 'FOOTER') ? (
              <span className="muted small">{componentText(template, 'FOOTER')}</span>
            ) : null}
          </div>
        </>
      ) : null}
      <FormError error={error} testId="compose-error" />
      <div className="composer-actions">
        <SendTemplateButton busy={busy} disabled={!template || busy} />
      </div>
    </form>
  );
}

/** The drawer's reply box: a bubble's Reply focuses it. */
export const DRAWER_TEXT_ID = 'drawer-compose-text';

function TextForm({ windowOpen, quoted }: { windowOpen: boolean; quoted: Message | null }) {
  const sendText = useMessages((s) => s.sendText);
  const [text, setText] = useState('');
  const { busy, error, run } = useAction();
  const input = useRef<HTMLTextAreaElement>(null);
  const quotedId = quoted?.id ?? null;
  // A message just chosen to quote: the agent types the answer below it.
  useEffect(() => {
    if (quotedId) input.current?.focus();
  }, [quotedId]);

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    if (!text.trim() || busy) return;
    await run(async () => {
      await sendText(text, quoted);
      setText('');
    });
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
          ref={input}
          id={DRAWER_TEXT_ID}
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
      <FormError error={error} testId="compose-error" />
    </form>
  );
}

function SimulateReply() {
  const simulateInbound = useMessages((s) => s.simulateInbound);
  const [text, setText] = useState('');
  const { busy, error, run } = useAction();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return;
    await run(async () => {
      await simulateInbound(text.trim());
      setText('');
    });
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
      <FormError error={error} />
    </form>
  );
}

interface MessageComposerProps {
  contactId: string;
  /** The contact's name (or number), for a quote of what they sent. */
  contactName: string;
  windowOpen: boolean;
}

export function MessageComposer({ contactId, contactName, windowOpen }: MessageComposerProps) {
  const testMode = useSession(selectIsTestMode);
  const [mode, setMode] = useState<Mode>(windowOpen ? 'text' : 'template');
  const quoted = useContactQuote(contactId);
  // A new quote inside the window opens the free-text form it goes with.
  const [quoteSeen, setQuoteSeen] = useState<string | null>(quoted?.id ?? null);
  if ((quoted?.id ?? null) !== quoteSeen) {
    setQuoteSeen(quoted?.id ?? null);
    if (quoted && windowOpen) setMode('text');
  }
  const reason = mode === 'template' || !windowOpen ? quoteWaitsBecause('template') : null;

  return (
    <div className="composer" data-testid="composer">
      <div className="tabs composer-tabs" role="tablist">
        <Tab
          selected={mode === 'template'}
          onSelect={() => setMode('template')}
          testId="compose-mode-template"
        >
          Template
        </Tab>
        <Tab selected={mode === 'text'} onSelect={() => setMode('text')} testId="compose-mode-text">
          Free text
          {!windowOpen ? <span className="tab-count">closed</span> : null}
        </Tab>
      </div>
      {quoted ? (
        <QuoteBox
          quoted={quoted}
          customerName={contactName}
          reason={reason}
          onDismiss={() => document.getElementById(DRAWER_TEXT_ID)?.focus()}
        />
      ) : null}
      {mode === 'template' ? (
        <TemplateForm />
      ) : (
        <TextForm windowOpen={windowOpen} quoted={reason ? null : quoted} />
      )}
      {testMode ? <SimulateReply /> : null}
    </div>
  );
}
