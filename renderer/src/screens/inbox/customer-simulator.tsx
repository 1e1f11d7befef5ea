import { useId, useMemo, useState, type FormEvent } from 'react';
import type { MediaType } from '../../../../shared/schemas/media.ts';
import type { Conversation, Message } from '../../../../shared/schemas/index.ts';
import { api, type SimulatedInbound } from '../../api/client.ts';
import { FormError } from '../../components/form-error.tsx';
import { isNote } from '../../components/message-bubble.tsx';
import { useAction } from '../../components/use-action.ts';
import { selectIsTestMode, useSession } from '../../stores/session.ts';
import { useThread } from '../../stores/thread.ts';
import './customer-simulator.css';

const OPEN_KEY = 'parley.inbox.simulator';

/** What the customer sends, as POST /api/simulator/inbound takes it (less the phone). */
type CustomerSends = Omit<SimulatedInbound, 'phone' | 'receivedAt'>;

const simulate = (body: SimulatedInbound) => api.simulator.inbound(body);

/** Where the simulated customer says they are. */
const LOCATION = {
  latitude: 52.521918,
  longitude: 13.413215,
  name: 'Alexanderplatz',
  address: 'Alexanderplatz 1, 10178 Berlin',
};

/** The contact card the simulated customer shares. */
const SHARED_CONTACT = {
  name: 'Sam Rivera',
  phones: ['+1 415 555 0199'],
  emails: ['sam.rivera@example.com'],
  organization: 'Rivera Plumbing',
};

interface Choice {
  label: string;
  /** What the status line says was sent. */
  words: string;
  testId: string;
  title?: string;
  /** Whether the caption field goes with it (photos, videos and documents). */
  captioned: boolean;
  body: (caption: string) => CustomerSends;
}

/** One of the simulator's bundled sample files, with the caption where WhatsApp takes one. */
const sampleFile =
  (type: MediaType, captioned: boolean) =>
  (caption: string): CustomerSends => ({
    media: { type, ...(captioned && caption ? { caption } : {}) },
  });

const CHOICES: readonly Choice[] = [
  {
    label: 'Photo',
    words: 'a photo',
    testId: 'simulate-photo',
    captioned: true,
    body: sampleFile('image', true),
  },
  {
    label: 'Voice note',
    words: 'a voice note',
    testId: 'simulate-voice',
    title: 'A voice note goes without a caption on WhatsApp',
    captioned: false,
    body: sampleFile('audio', false),
  },
  {
    label: 'Video',
    words: 'a video',
    testId: 'simulate-video',
    captioned: true,
    body: sampleFile('video', true),
  },
  {
    label: 'Document (PDF)',
    words: 'a PDF',
    testId: 'simulate-document',
    captioned: true,
    body: sampleFile('document', true),
  },
  {
    label: 'Sticker',
    words: 'a sticker',
    testId: 'simulate-sticker',
    title: 'A sticker goes without a caption on WhatsApp',
    captioned: false,
    body: sampleFile('sticker', false),
  },
  {
    label: 'Location',
    words: 'a location',
    testId: 'simulate-location',
    title: `${LOCATION.name}, ${LOCATION.address}`,
    captioned: false,
    body: () => ({ location: LOCATION }),
  },
  {
    label: 'Contact card',
    words: 'a contact card',
    testId: 'simulate-contact',
    title: `${SHARED_CONTACT.name}, ${SHARED_CONTACT.organization}`,
    captioned: false,
    body: () => ({ contacts: [SHARED_CONTACT] }),
  },
];

/** The newest messages the customer may quote, newest first. */
const QUOTABLE = 20;
const QUOTE_CHARS = 60;

/** A message in a few words, for the quote picker. */
function quoteLabel(message: Message): string {
  const who = message.direction === 'inbound' ? 'Customer' : 'You';
  const what =
    message.text.trim() ||
    (message.media
      ? `[${message.media.fileName ?? message.media.type}]`
      : message.list
        ? `[list: ${message.list.name}]`
        : `[${message.type}]`);
  const short = what.length > QUOTE_CHARS ? `${what.slice(0, QUOTE_CHARS - 1)}…` : what;
  return `${who}: ${short}`;
}

function readOpen(): boolean {
  try {
    return localStorage.getItem(OPEN_KEY) === 'open';
  } catch {
    return false;
  }
}

/**
 * Test mode only: the agent plays the customer of the open conversation — a text, a pick from
 * the last list sent, one of the simulator's sample files, a location or a contact card,
 * optionally quoting a message. What is sent arrives in the thread like any customer's message.
 */
export function CustomerSimulator({ conversation }: { conversation: Conversation }) {
  const testMode = useSession(selectIsTestMode);
  if (!testMode) return null;
  return <SimulatorPanel key={conversation.id} conversation={conversation} />;
}

function SimulatorPanel({ conversation }: { conversation: Conversation }) {
  const [open, setOpen] = useState(readOpen);
  const bodyId = useId();
  const phone = conversation.contact.phone;

  const toggle = () => {
    setOpen((was) => {
      try {
        localStorage.setItem(OPEN_KEY, was ? 'closed' : 'open');
      } catch {
        // The choice then lasts this session.
      }
      return !was;
    });
  };

  return (
    <section
      className={`customer-simulator${open ? ' open' : ''}`}
      aria-label="Customer (simulated)"
      data-testid="simulator-panel"
    >
      <button
        type="button"
        className="customer-simulator-toggle"
        aria-expanded={open}
        aria-controls={open ? bodyId : undefined}
        onClick={toggle}
        data-testid="simulator-toggle"
      >
        <span className="badge badge-test">Test</span>
        <span className="customer-simulator-title">Customer (simulated)</span>
        <span className="muted small customer-simulator-hint">
          {open ? 'Hide' : 'Reply as the customer: text, list pick, files, location, contact'}
        </span>
        <span className={`caret${open ? ' caret-up' : ''}`} aria-hidden="true" />
      </button>
      {open ? (
        phone ? (
          <SimulatorBody id={bodyId} phone={phone} />
        ) : (
          <p id={bodyId} className="composer-note customer-simulator-body">
            This customer shares no phone number (WhatsApp user id only): the simulator plays
            customers by their phone number.
          </p>
        )
      ) : null}
    </section>
  );
}

function SimulatorBody({ id, phone }: { id: string; phone: string }) {
  const messages = useThread((s) => s.messages);
  const [text, setText] = useState('');
  const [caption, setCaption] = useState('');
  const [quoteId, setQuoteId] = useState('');
  const [rowId, setRowId] = useState('');
  const [sent, setSent] = useState('');
  const { busy, error, run } = useAction();
  const fieldId = useId();

  const quotable = useMemo(
    () =>
      messages
        .filter((m) => !isNote(m) && m.type !== 'reaction')
        .slice(-QUOTABLE)
        .reverse(),
    [messages],
  );
  const lastList = useMemo(
    () => [...messages].reverse().find((m) => m.direction === 'outbound' && m.list)?.list ?? null,
    [messages],
  );
  const rows = lastList ? lastList.sections.flatMap((s) => s.rows) : [];
  // A quote that left the loaded messages is not offered any more.
  const quote = quotable.some((m) => m.id === quoteId) ? quoteId : '';

  const send = (what: CustomerSends, words: string, after?: () => void) =>
    run(async () => {
      setSent('');
      await simulate({ phone, ...what, ...(quote ? { replyToMessageId: quote } : {}) });
      setSent(`The customer sent ${words}${quote ? ', quoting a message' : ''}.`);
      setQuoteId('');
      after?.();
    });

  const sendText = (event: FormEvent) => {
    event.preventDefault();
    const message = text.trim();
    if (!message || busy) return;
    void send({ message }, 'a message', () => setText(''));
  };

  const pickRow = (event: FormEvent) => {
    event.preventDefault();
    const row = rows.find((r) => r.id === rowId);
    if (!lastList || !row || busy) return;
    void send({ listReply: { listId: lastList.id, rowId: row.id } }, `“${row.title}”`, () =>
      setRowId(''),
    );
  };

  const trimmedCaption = caption.trim();

  return (
    <div id={id} className="customer-simulator-body">
      <form className="customer-simulator-row" onSubmit={sendText} noValidate>
        <label className="visually-hidden" htmlFor={`${fieldId}-text`}>
          The customer’s message
        </label>
        <input
          id={`${fieldId}-text`}
          className="input customer-simulator-text"
          value={text}
          placeholder="The customer writes…"
          maxLength={4096}
          onChange={(event) => setText(event.target.value)}
          data-testid="simulate-text-input"
        />
        <button
          type="submit"
          className="button button-small"
          disabled={!text.trim() || busy}
          data-testid="simulate-text"
        >
          Send as customer
        </button>
      </form>

      {lastList && rows.length > 0 ? (
        <form className="customer-simulator-row" onSubmit={pickRow} noValidate>
          <label className="customer-simulator-label" htmlFor={`${fieldId}-row`}>
            Pick from “{lastList.name}”
          </label>
          <select
            id={`${fieldId}-row`}
            className="select"
            value={rowId}
            onChange={(event) => setRowId(event.target.value)}
            data-testid="simulate-list-row"
          >
            <option value="">Choose a row…</option>
            {lastList.sections.map((section, i) => (
              <optgroup key={`${i}-${section.title}`} label={section.title || lastList.buttonText}>
                {section.rows.map((row) => (
                  <option key={row.id} value={row.id}>
                    {row.title}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
          <button
            type="submit"
            className="button button-small"
            disabled={!rowId || busy}
            data-testid="simulate-list-pick"
          >
            Pick row
          </button>
        </form>
      ) : null}

      <div className="customer-simulator-row" role="group" aria-label="The customer sends">
        <label className="customer-simulator-label" htmlFor={`${fieldId}-caption`}>
          Caption
        </label>
        <input
          id={`${fieldId}-caption`}
          className="input customer-simulator-caption"
          value={caption}
          placeholder="Optional, for a photo, video or PDF"
          maxLength={1024}
          onChange={(event) => setCaption(event.target.value)}
          data-testid="simulate-caption"
        />
        {CHOICES.map((choice) => (
          <button
            key={choice.testId}
            type="button"
            className="button button-small"
            disabled={busy}
            title={choice.title}
            onClick={() =>
              void send(
                choice.body(trimmedCaption),
                choice.words,
                choice.captioned ? () => setCaption('') : undefined,
              )
            }
            data-testid={choice.testId}
          >
            {choice.label}
          </button>
        ))}
      </div>

      <div className="customer-simulator-row">
        <label className="customer-simulator-label" htmlFor={`${fieldId}-quote`}>
          Quoting
        </label>
        <select
          id={`${fieldId}-quote`}
          className="select customer-simulator-quote"
          value={quote}
          onChange={(event) => setQuoteId(event.target.value)}
          data-testid="simulate-quote"
        >
          <option value="">No quote</option>
          {quotable.map((m) => (
            <option key={m.id} value={m.id}>
              {quoteLabel(m)}
            </option>
          ))}
        </select>
        <p className="composer-note customer-simulator-status" aria-live="polite">
          {busy ? 'Sending…' : sent}
        </p>
      </div>
      <FormError error={error} testId="simulate-error" />
    </div>
  );
}
