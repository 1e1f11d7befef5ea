import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useStore } from 'zustand';
import { ATTACH_ACCEPT } from '../../../../shared/media-rules.ts';
import { parsePlaceholders } from '../../../../shared/placeholders.ts';
import type { Conversation, Message } from '../../../../shared/schemas/index.ts';
import { ApiRequestError, errorMessage, isAbortError } from '../../api/client.ts';
import { FormError } from '../../components/form-error.tsx';
import { CheckIcon, ListIcon, PaperclipIcon, SendIcon } from '../../components/icons.tsx';
import { Tab } from '../../components/tab.tsx';
import { PickerAnchor } from '../../components/text-picker.tsx';
import { useToastFloor } from '../../components/toaster.tsx';
import {
  SendTemplateButton,
  TemplateSelect,
  useTemplateVariables,
  useTemplatesReadyClock,
  VariableInputs,
} from '../../components/template-picker.tsx';
import { componentText } from '../../components/template-text.ts';
import { useAction } from '../../components/use-action.ts';
import { useNow } from '../../components/use-now.ts';
import { WhatsAppPreview } from '../../components/whatsapp-preview.tsx';
import { useCannedPicker } from '../canned-replies/canned-reply-picker.tsx';
import { isUsable, useApprovedTemplates } from '../../stores/approved-templates.ts';
import { hrefFor } from '../../stores/route.ts';
import { useSession } from '../../stores/session.ts';
import { isWindowOpen, useThread, windowClosesAt } from '../../stores/thread.ts';
import { signalTyping } from '../../stores/viewers.ts';
import { AttachmentTray } from './attachment-tray.tsx';
import {
  addFiles,
  attachmentsFor,
  clearAttachments,
  filesOf,
  sendAttachment,
  ShownOnCard,
  type AttachmentStore,
} from './attachments.ts';
import { ConflictDialog, conflictOf } from './conflict-dialog.tsx';
import { DropZone, useFileDrop } from './drop-zone.tsx';
import { LIST_CLOSED_HINT, ListReply } from './list-reply.tsx';
import { useMentionPicker } from './mention-picker.tsx';
import { QuotePreview, type ComposerKind } from './quote-preview.tsx';
import { RESOLVE_NEXT_GLYPHS, RESOLVE_NEXT_KEYS, resolveAndOpenNext } from './resolve-next.ts';
import { TypingIndicator } from './thread-viewers.tsx';
import { remaining } from './time.ts';

type Mode = 'reply' | 'note';

/** The API's limit for free text (README "API"). */
const TEXT_MAX = 4096;

const NO_FILES: never[] = [];

/** Unsent text per conversation, so switching conversations keeps a half-written reply. */
const drafts = new Map<string, string>();

/** The reply box's id: the `r` shortcut focuses it. */
export const REPLY_INPUT_ID = 'inbox-reply-input';

/** The newest message on screen: what a reply is based on (README "Working together"). */
const newestMessageId = (): string | undefined => useThread.getState().messages.at(-1)?.id;

/** A reply the core refused because someone else wrote first: what they wrote, and the choice. */
interface Conflict {
  message: Message;
  busy: boolean;
  error: string | null;
  /** Once sent, resolve the conversation and open the next one. */
  resolveNext: boolean;
}

/** A failure the composer has already shown elsewhere (a cancelled upload, a file's card). */
const shownElsewhere = (e: unknown): boolean => isAbortError(e) || e instanceof ShownOnCard;

function TextReply({
  conversation,
  note,
  attachments,
}: {
  conversation: Conversation;
  note: boolean;
  /** The reply's files (a note carries none). */
  attachments: AttachmentStore;
}) {
  const reply = useThread((s) => s.reply);
  const reload = useThread((s) => s.reload);
  const draftKey = `${conversation.id}:${note ? 'note' : 'reply'}`;
  const [text, setText] = useState(() => drafts.get(draftKey) ?? '');
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const { busy, error, setError, run } = useAction();
  const textarea = useRef<HTMLTextAreaElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const unfilledId = useId();
  const files = useStore(attachments, (s) => (note ? NO_FILES : s.items));
  const sendable = Boolean(text.trim()) || files.length > 0;
  // Cancel stops the upload under way and sends nothing more; so does leaving the composer.
  const upload = useRef<AbortController | null>(null);
  useEffect(() => () => upload.current?.abort(), []);

  const edit = (value: string) => {
    setText(value);
    if (value) drafts.set(draftKey, value);
    else drafts.delete(draftKey);
  };

  // `/` opens the canned replies; inserting one fills its placeholders from this contact.
  const canned = useCannedPicker({
    text,
    setText: edit,
    textarea,
    contact: conversation.contact,
  });
  // `@` in a note offers the teammates to mention.
  const mention = useMentionPicker({ enabled: note, text, setText: edit, textarea });
  const picker = mention.open ? mention : canned;
  // A placeholder the contact had no value for stays in the text until the agent replaces it.
  const unfilled = parsePlaceholders(text).placeholders[0] ?? null;

  /**
   * Sends the files, each uploaded then sent as its own message, and then the text, the first
   * based on a message and each next one on the one before; each leaves the draft once sent, so
   * sending again after a failure goes on where it stopped.
   */
  const send = async (basedOnMessageId: string | undefined) => {
    const controller = new AbortController();
    upload.current = controller;
    let based = basedOnMessageId;
    try {
      for (const { key } of note ? [] : attachments.getState().items) {
        const sent = await sendAttachment(attachments, key, {
          reply,
          basedOnMessageId: based,
          signal: controller.signal,
        });
        based = sent.id;
      }
      if (!text.trim()) return;
      await reply({
        text,
        ...(note ? { private: true } : {}),
        ...(based ? { basedOnMessageId: based } : {}),
      });
      edit('');
    } finally {
      if (upload.current === controller) upload.current = null;
    }
  };

  /** Someone else wrote since: show it, in the thread and in the dialog that asks what to do. */
  const showConflict = (message: Message, resolveNext: boolean) => {
    useThread.getState().applyMessage(message);
    setConflict({ message, busy: false, error: null, resolveNext });
  };

  /** Sends; with `resolveNext` (a reply only), then resolves and opens the next conversation. */
  const submit = async (event?: FormEvent, resolveNext = false) => {
    event?.preventDefault();
    if (note) resolveNext = false;
    if (!sendable || busy) return;
    const refused = files.find((f) => f.refused);
    if (refused) {
      form.current
        ?.querySelector<HTMLElement>(
          `[data-attachment="${refused.key}"] [data-testid="attachment-remove"]`,
        )
        ?.focus();
      setError(`Remove “${refused.name}” before sending: WhatsApp won’t take it as it is.`);
      return;
    }
    if (unfilled) {
      textarea.current?.focus();
      textarea.current?.setSelectionRange(unfilled.start, unfilled.end);
      setError(`Replace ${unfilled.raw} with the customer’s details before sending.`);
      return;
    }
    await run(
      async () => {
        await send(newestMessageId());
        if (resolveNext) await resolveAndOpenNext(conversation.id);
      },
      (e) => {
        if (shownElsewhere(e)) return true;
        const newer = conflictOf(e);
        if (newer) {
          showConflict(newer, resolveNext);
          return true;
        }
        // The window closed meanwhile: fetch the conversation so the composer offers templates.
        if (e instanceof ApiRequestError && e.code === 'outside_service_window') void reload();
      },
    );
  };

  const backToDraft = () => {
    setConflict(null);
    textarea.current?.focus();
  };

  const sendAnyway = async () => {
    if (!conflict || conflict.busy) return;
    setConflict({ ...conflict, busy: true, error: null });
    try {
      await send(conflict.message.id);
      if (conflict.resolveNext) await resolveAndOpenNext(conversation.id);
      setConflict(null);
      textarea.current?.focus();
    } catch (e) {
      // Yet another message came meanwhile: show that one instead.
      const newer = conflictOf(e);
      if (newer) showConflict(newer, conflict.resolveNext);
      else if (shownElsewhere(e)) setConflict(null);
      else setConflict({ ...conflict, busy: false, error: errorMessage(e) });
    }
  };

  return (
    <form
      ref={form}
      className="reply-form"
      onSubmit={submit}
      noValidate
      data-testid="reply-text-form"
    >
      <PickerAnchor>{mention.picker ?? canned.picker}</PickerAnchor>
      {note ? null : (
        <AttachmentTray
          store={attachments}
          busy={busy || Boolean(conflict?.busy)}
          onCancel={() => upload.current?.abort()}
        />
      )}
      <div className="reply-text-row">
        <textarea
          ref={textarea}
          id={REPLY_INPUT_ID}
          className="input textarea reply-textarea"
          rows={2}
          value={text}
          maxLength={TEXT_MAX}
          placeholder={
            note
              ? 'Write a private note — only agents see it · @ to mention a teammate'
              : files.length > 0
                ? 'Add a message, sent after the files · Enter to send'
                : `Type a reply · / for canned replies · Enter to send, Shift+Enter for a new line · ${RESOLVE_NEXT_KEYS} to send and resolve`
          }
          aria-label={note ? 'Private note' : 'Reply'}
          aria-describedby={unfilled ? unfilledId : undefined}
          {...picker.inputProps}
          onChange={(event) => {
            edit(event.target.value);
            canned.track(event.target);
            mention.track(event.target);
            if (event.target.value) signalTyping(conversation.id);
          }}
          onSelect={(event) => {
            canned.track(event.currentTarget);
            mention.track(event.currentTarget);
          }}
          onFocus={(event) => {
            canned.track(event.currentTarget);
            mention.track(event.currentTarget);
          }}
          onBlur={() => {
            canned.close();
            mention.close();
          }}
          onKeyDown={(event) => {
            if (mention.onKeyDown(event) || canned.onKeyDown(event)) return;
            if (event.key !== 'Enter' || event.nativeEvent.isComposing) return;
            if (event.shiftKey && (event.ctrlKey || event.metaKey)) {
              event.preventDefault();
              void submit(undefined, !note);
            } else if (!event.shiftKey) {
              event.preventDefault();
              void submit();
            }
          }}
          data-testid="reply-text"
        />
        <div className="reply-send-group">
          <button
            type="submit"
            className={`button ${note ? 'button-note' : 'button-primary'} reply-send`}
            disabled={!sendable || busy}
            aria-label={note ? 'Add note' : 'Send reply'}
            data-testid="reply-send"
          >
            <SendIcon />
            <span>{note ? 'Add note' : 'Send'}</span>
          </button>
          {note ? null : (
            <button
              type="button"
              className="button button-small reply-send-resolve"
              disabled={!sendable || busy}
              title={`Send, resolve this conversation and open the next one (${RESOLVE_NEXT_KEYS})`}
              aria-keyshortcuts="Control+Shift+Enter Meta+Shift+Enter"
              onClick={() => void submit(undefined, true)}
              data-testid="reply-send-resolve"
            >
              <CheckIcon />
              <span>
                Send &amp; resolve
                <span className="visually-hidden"> and open the next conversation</span>
              </span>
              <kbd className="kbd reply-send-keys" aria-hidden="true">
                {RESOLVE_NEXT_GLYPHS}
              </kbd>
            </button>
          )}
        </div>
      </div>
      {unfilled ? (
        <p className="canned-unfilled" id={unfilledId} data-testid="reply-unfilled">
          This contact has no value for <code>{unfilled.raw}</code>: replace it (it is selected when
          inserted) before sending.
        </p>
      ) : null}
      <FormError error={error} testId="reply-error" />
      {conflict ? (
        <ConflictDialog
          message={conflict.message}
          note={note}
          busy={conflict.busy}
          error={conflict.error}
          onSendAnyway={() => void sendAnyway()}
          onEdit={backToDraft}
          onDiscard={() => {
            edit('');
            if (!note) clearAttachments(attachments);
            backToDraft();
          }}
        />
      ) : null}
    </form>
  );
}

function TemplateReply({ conversation, now }: { conversation: Conversation; now: number }) {
  const approved = useApprovedTemplates((s) => s.approved);
  const status = useApprovedTemplates((s) => s.status);
  const ensureLoaded = useApprovedTemplates((s) => s.ensureLoaded);
  const reply = useThread((s) => s.reply);
  const businessName = useSession((s) => s.me?.businessAccount.name ?? 'Your business');
  const [templateId, setTemplateId] = useState('');
  const { busy, error, setError, run } = useAction();

  useEffect(() => ensureLoaded(), [ensureLoaded]);

  // One clock for the select and for what counts as chosen: a template leaving its wait is
  // selectable and usable at the same instant (the composer's own clock ticks every 30 s).
  const readyNow = Math.max(now, useTemplatesReadyClock(approved));
  const usable = approved.filter((t) => isUsable(t, readyNow));
  const template = usable.find((t) => t.id === templateId) ?? null;
  const { values, setValues, numbers, missingError } = useTemplateVariables(template);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!template || busy) return;
    if (missingError) return setError(missingError);
    await run(async () => {
      await reply({
        templateName: template.name,
        ...(numbers.length > 0
          ? { variables: Object.fromEntries(numbers.map((n) => [n, values[n]!.trim()])) }
          : {}),
      });
      setValues({});
      setTemplateId('');
    });
  };

  const buttons = template?.components.find((c) => c.type === 'BUTTONS')?.buttons ?? [];

  return (
    <form
      className="reply-form reply-template"
      onSubmit={submit}
      noValidate
      data-testid="template-picker"
    >
      <p className="reply-window-note" data-testid="window-closed-note">
        <strong>
          {conversation.lastInboundAt
            ? 'The customer hasn’t written in 24 h — send a template.'
            : 'The customer hasn’t written yet — start with a template.'}
        </strong>{' '}
        Free text is only allowed within 24 hours of their last message; an approved template
        restarts the conversation.
      </p>
      {status === 'ready' && approved.length === 0 ? (
        <p className="composer-note" data-testid="no-approved-templates">
          No approved templates yet. <a href={hrefFor('templates')}>Create one in Templates</a>;
          once approved it can restart the conversation.
        </p>
      ) : (
        <div className={`reply-template-grid${template ? ' with-preview' : ''}`}>
          <div className="reply-template-fields">
            <TemplateSelect
              id={REPLY_INPUT_ID}
              templates={approved}
              now={readyNow}
              value={templateId}
              onChange={(id) => {
                setTemplateId(id);
                setValues({});
                setError(null);
              }}
              loading={status === 'loading' || status === 'idle'}
              testId="reply-template-select"
            />
            <VariableInputs
              numbers={numbers}
              values={values}
              onChange={setValues}
              testIdPrefix="reply-var"
              placeholders
            />
            <FormError error={error} testId="reply-error" />
            <div className="reply-template-actions">
              <SendTemplateButton busy={busy} disabled={!template || busy} />
            </div>
          </div>
          {template ? (
            <div className="reply-template-preview">
              <WhatsAppPreview
                header={componentText(template, 'HEADER')}
                body={componentText(template, 'BODY')}
                footer={componentText(template, 'FOOTER')}
                buttons={buttons}
                samples={values}
                status="accepted"
                businessName={businessName}
                testId="reply-template-preview"
              />
            </div>
          ) : null}
        </div>
      )}
    </form>
  );
}

function WindowChip({ conversation, now }: { conversation: Conversation; now: number }) {
  const closesAt = windowClosesAt(conversation, now);
  return (
    <span
      className={`window-chip ${closesAt ? 'window-open' : 'window-closed'}`}
      data-testid="service-window"
      data-open={closesAt !== null}
      title="Free text is allowed for 24 hours after the customer's last message"
    >
      {closesAt
        ? `Window open · ${remaining(closesAt - now)} left`
        : 'Window closed · templates only'}
    </span>
  );
}

/**
 * The composer's list button: opens the saved lists in place of the reply box. Outside the
 * window it is disabled and says why.
 */
function ListToggle({
  open,
  windowOpen,
  onToggle,
}: {
  open: boolean;
  windowOpen: boolean;
  onToggle: () => void;
}) {
  const hintId = useId();
  return (
    <>
      <button
        type="button"
        className={`button button-small reply-list-toggle${open ? ' selected' : ''}`}
        aria-pressed={open}
        disabled={!windowOpen}
        title={windowOpen ? 'Send a saved interactive list' : LIST_CLOSED_HINT}
        aria-describedby={windowOpen ? undefined : hintId}
        onClick={onToggle}
        data-testid="reply-list-toggle"
      >
        <ListIcon size={15} />
        List
      </button>
      {windowOpen ? null : (
        <span id={hintId} className="visually-hidden">
          {LIST_CLOSED_HINT}
        </span>
      )}
    </>
  );
}

/** Why files cannot be attached now, or null when they can. */
export const ATTACH_CLOSED_HINT =
  'Files can only be sent within 24 hours of the customer’s last message.';
const ATTACH_NOTE_HINT = 'Private notes can’t carry files: switch to Reply to attach one.';

const isMac = /Mac|iPhone|iPad/.test(navigator.platform);
/** The attach shortcut, as the keyboard shows it. */
const ATTACH_KEYS = isMac ? '⌘⇧U' : 'Ctrl+Shift+U';

/**
 * The composer's attach button: opens the file picker (also Ctrl+Shift+U; files may be pasted or
 * dropped too). Outside the window it is disabled and says why.
 */
function AttachButton({
  blocked,
  describedBy,
  onPick,
}: {
  blocked: string | null;
  describedBy: string | undefined;
  onPick: () => void;
}) {
  const hintId = useId();
  return (
    <>
      <button
        type="button"
        className="button button-small reply-attach-toggle"
        disabled={blocked !== null}
        title={blocked ?? `Attach files (${ATTACH_KEYS}) · or paste or drop them here`}
        aria-keyshortcuts="Control+Shift+U Meta+Shift+U"
        aria-describedby={
          [blocked ? hintId : undefined, describedBy].filter(Boolean).join(' ') || undefined
        }
        onClick={onPick}
        data-testid="attach-button"
      >
        <PaperclipIcon size={15} />
        Attach
      </button>
      {blocked ? (
        <span id={hintId} className="visually-hidden">
          {blocked}
        </span>
      ) : null}
    </>
  );
}

/** Ctrl+Shift+U (⌘⇧U) anywhere in the inbox, unless a dialog is open. */
function useAttachShortcut(onPick: () => void) {
  const latest = useRef(onPick);
  useEffect(() => {
    latest.current = onPick;
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || !event.shiftKey || event.altKey) return;
      if (event.key.toLowerCase() !== 'u' || event.defaultPrevented) return;
      if (document.querySelector('dialog[open]')) return;
      event.preventDefault();
      latest.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

/**
 * Replies and notes; outside the 24 h window, replies are approved templates. Inside it, the
 * reply may be a saved interactive list instead of text, and may carry files (attach, paste or
 * drop them) and quote a message.
 */
export function ReplyComposer({ conversation }: { conversation: Conversation }) {
  const now = useNow(30_000);
  const [mode, setMode] = useState<Mode>('reply');
  const [listOpen, setListOpen] = useState(false);
  const windowOpen = isWindowOpen(conversation, now);
  const kind: ComposerKind =
    mode === 'note' ? 'note' : !windowOpen ? 'template' : listOpen ? 'list' : 'text';
  const [attachments] = useState(() => attachmentsFor(conversation.id));
  const [notice, setNotice] = useState<string | null>(null);
  const noticeId = useId();
  const root = useRef<HTMLDivElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const attachBlocked = mode === 'note' ? ATTACH_NOTE_HINT : windowOpen ? null : ATTACH_CLOSED_HINT;

  const attach = (files: File[]) => {
    if (files.length === 0) return;
    if (attachBlocked) return setNotice(attachBlocked);
    setListOpen(false);
    setNotice(addFiles(attachments, files));
  };
  const pickFiles = () => {
    if (attachBlocked) return setNotice(attachBlocked);
    picker.current?.click();
  };
  const drop = useFileDrop(root, attachBlocked === null, attach);
  useAttachShortcut(pickFiles);
  // Notices stay above the composer: a burst of them must not cover Send.
  useToastFloor(root);

  return (
    <div
      ref={root}
      className={`reply-composer reply-${kind}`}
      data-testid="reply-composer"
      data-kind={kind}
      onPaste={(event) => {
        // Pasted images (a screenshot) become attachments; pasted text stays text.
        const files = filesOf(event.clipboardData);
        if (files.length === 0) return;
        event.preventDefault();
        attach(files);
      }}
    >
      <TypingIndicator conversationId={conversation.id} />
      <div className="reply-head">
        <div className="reply-modes" role="tablist" aria-label="Reply or note">
          <Tab
            selected={mode === 'reply'}
            onSelect={() => {
              setMode('reply');
              setNotice(null);
            }}
            className="reply-mode"
            testId="composer-mode-reply"
          >
            Reply
          </Tab>
          <Tab
            selected={mode === 'note'}
            onSelect={() => {
              setMode('note');
              setNotice(null);
            }}
            className="reply-mode reply-mode-note"
            testId="composer-mode-note"
          >
            Private note
          </Tab>
        </div>
        <div className="reply-head-end">
          {mode === 'reply' ? (
            <AttachButton
              blocked={attachBlocked}
              describedBy={notice ? noticeId : undefined}
              onPick={pickFiles}
            />
          ) : null}
          {mode === 'reply' ? (
            <ListToggle
              open={kind === 'list'}
              windowOpen={windowOpen}
              onToggle={() => setListOpen((open) => !open)}
            />
          ) : null}
          <WindowChip conversation={conversation} now={now} />
        </div>
      </div>
      <input
        ref={picker}
        type="file"
        multiple
        accept={ATTACH_ACCEPT}
        hidden
        disabled={attachBlocked !== null}
        onChange={(event) => {
          attach([...(event.target.files ?? [])]);
          // The same file may be chosen again (after removing it).
          event.target.value = '';
        }}
        data-testid="attach-input"
      />
      {notice ? (
        <p
          id={noticeId}
          className="form-error attach-notice"
          role="alert"
          data-testid="attach-notice"
        >
          {notice}
        </p>
      ) : null}
      <QuotePreview
        conversation={conversation}
        kind={kind}
        onDismiss={() => document.getElementById(REPLY_INPUT_ID)?.focus()}
      />
      {kind === 'template' ? (
        <TemplateReply conversation={conversation} now={now} />
      ) : kind === 'list' ? (
        <ListReply inputId={REPLY_INPUT_ID} onDone={() => setListOpen(false)} />
      ) : (
        <TextReply
          key={kind}
          conversation={conversation}
          note={kind === 'note'}
          attachments={attachments}
        />
      )}
      <DropZone over={drop.over} reason={attachBlocked} />
    </div>
  );
}
