import {
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type RefObject,
} from 'react';
import { renderPlaceholders, type PlaceholderContact } from '../../../../shared/placeholders.ts';
import type { CannedReply } from '../../../../shared/schemas/index.ts';
import { matchCannedReplies, useCannedReplies } from '../../stores/canned-replies.ts';
import { hrefFor } from '../../stores/route.ts';
import './canned-replies.css';

/** `/` at the start of the text or after a space, then what is typed up to the caret. */
const TRIGGER = /(?:^|\s)\/([a-z0-9_-]*)$/i;

interface Trigger {
  /** Where the `/` is. */
  start: number;
  /** The caret: the trigger runs from `start` to here. */
  end: number;
  query: string;
}

function triggerAt(text: string, caret: number): Trigger | null {
  const m = TRIGGER.exec(text.slice(0, caret));
  if (!m) return null;
  return { start: caret - m[1]!.length - 1, end: caret, query: m[1]!.toLowerCase() };
}

interface PickerOptions {
  text: string;
  setText: (text: string) => void;
  textarea: RefObject<HTMLTextAreaElement | null>;
  contact: PlaceholderContact;
}

/**
 * The composer's `/` picker: what it shows, the textarea's ARIA wiring, and the keys it takes
 * while open. Inserting fills the reply's placeholders from the contact; the first one the
 * contact has no value for is left selected so the agent types over it.
 */
export function useCannedPicker({ text, setText, textarea, contact }: PickerOptions) {
  const library = useCannedReplies((s) => s.library);
  const libraryStatus = useCannedReplies((s) => s.libraryStatus);
  const ensureLibrary = useCannedReplies((s) => s.ensureLibrary);
  const refreshLibrary = useCannedReplies((s) => s.refreshLibrary);
  const [caret, setCaret] = useState<number | null>(null);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  // The highlighted option, for the query it was chosen under: a new query starts at the top.
  const [chosen, setChosen] = useState<{ query: string; index: number } | null>(null);
  const pendingSelection = useRef<[number, number] | null>(null);
  const listboxId = useId();

  useEffect(() => ensureLibrary(), [ensureLibrary]);

  const trigger = caret === null ? null : triggerAt(text, caret);
  const open = trigger !== null && trigger.start !== dismissedAt;
  const matches = open ? matchCannedReplies(library, trigger.query) : [];
  const active = trigger && chosen?.query === trigger.query ? chosen.index : 0;
  const activeIndex = Math.min(active, Math.max(0, matches.length - 1));
  const setActive = (index: number) => {
    if (trigger) setChosen({ query: trigger.query, index });
  };
  const optionId = (i: number) => `${listboxId}-option-${i}`;

  // Each time the picker opens, pick up replies others saved since the library was read.
  useEffect(() => {
    if (open) refreshLibrary();
  }, [open, refreshLibrary]);

  // Once the inserted text is on screen, put the caret (or the selection) where it belongs.
  useLayoutEffect(() => {
    const selection = pendingSelection.current;
    const el = textarea.current;
    if (!selection || !el) return;
    pendingSelection.current = null;
    el.focus();
    el.setSelectionRange(selection[0], selection[1]);
  }, [text, textarea]);

  /** Follows the caret: call on every change, selection change and focus. */
  const track = (el: HTMLTextAreaElement) => {
    const at = el.selectionStart === el.selectionEnd ? el.selectionStart : null;
    setCaret(at);
    // Typing elsewhere forgets an Escape: the next `/` opens the picker again.
    if (dismissedAt !== null && triggerAt(el.value, at ?? -1)?.start !== dismissedAt) {
      setDismissedAt(null);
    }
  };

  const insert = (reply: CannedReply) => {
    if (!trigger) return;
    const filled = renderPlaceholders(reply.text, contact);
    const next = text.slice(0, trigger.start) + filled.text + text.slice(trigger.end);
    const first = filled.missing[0];
    const end = trigger.start + filled.text.length;
    pendingSelection.current = first
      ? [trigger.start + first.start, trigger.start + first.end]
      : [end, end];
    setCaret(first ? null : end);
    setText(next);
  };

  /** The picker's keys; true when it took the key (the composer must not act on it too). */
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || event.nativeEvent.isComposing) return false;
    const take = () => {
      event.preventDefault();
      event.stopPropagation();
      return true;
    };
    switch (event.key) {
      case 'Escape':
        setDismissedAt(trigger.start);
        return take();
      case 'ArrowDown':
        if (matches.length === 0) return false;
        setActive((activeIndex + 1) % matches.length);
        return take();
      case 'ArrowUp':
        if (matches.length === 0) return false;
        setActive((activeIndex - 1 + matches.length) % matches.length);
        return take();
      case 'Enter':
      case 'Tab': {
        if (event.shiftKey) return false;
        const chosen = matches[activeIndex];
        if (!chosen) return false;
        insert(chosen);
        return take();
      }
      default:
        return false;
    }
  };

  const hasOptions = open && matches.length > 0;
  return {
    open,
    onKeyDown,
    track,
    close: () => setCaret(null),
    /** Spread on the textarea: it stays the focus, the listbox's active option is announced. */
    inputProps: {
      'aria-autocomplete': 'list' as const,
      'aria-controls': hasOptions ? listboxId : undefined,
      'aria-activedescendant': hasOptions ? optionId(activeIndex) : undefined,
    },
    picker: open ? (
      <CannedPickerList
        listboxId={listboxId}
        optionId={optionId}
        matches={matches}
        active={activeIndex}
        query={trigger.query}
        status={libraryStatus}
        onHover={setActive}
        onPick={insert}
      />
    ) : null,
  };
}

function CannedPickerList({
  listboxId,
  optionId,
  matches,
  active,
  query,
  status,
  onHover,
  onPick,
}: {
  listboxId: string;
  optionId: (i: number) => string;
  matches: CannedReply[];
  active: number;
  query: string;
  status: string;
  onHover: (i: number) => void;
  onPick: (reply: CannedReply) => void;
}) {
  const list = useRef<HTMLUListElement>(null);
  const labelId = `${listboxId}-label`;

  useEffect(() => {
    list.current?.children[active]?.scrollIntoView({ block: 'nearest' });
  }, [active]);

  let empty: string | null = null;
  if (matches.length === 0) {
    empty =
      status === 'loading' || status === 'idle'
        ? 'Loading canned replies…'
        : status === 'error'
          ? 'Canned replies could not be loaded.'
          : query
            ? `No canned reply matches /${query}.`
            : 'No canned replies yet.';
  }

  return (
    <div className="canned-picker" data-testid="canned-picker">
      <div className="canned-picker-head">
        <span id={labelId}>Canned replies</span>
        <span className="canned-picker-keys">↑ ↓ choose · Enter or Tab insert · Esc close</span>
      </div>
      {empty ? (
        <p className="canned-picker-empty" role="status" data-testid="canned-picker-empty">
          {empty} <a href={hrefFor('canned-replies')}>Manage canned replies</a>
        </p>
      ) : (
        <>
          <ul
            className="canned-options"
            role="listbox"
            id={listboxId}
            aria-labelledby={labelId}
            ref={list}
          >
            {matches.map((reply, i) => (
              <li
                key={reply.id}
                id={optionId(i)}
                role="option"
                aria-selected={i === active}
                className={`canned-option${i === active ? ' active' : ''}`}
                // The textarea keeps the focus (and its caret) while an option is clicked.
                onMouseDown={(event) => event.preventDefault()}
                onMouseMove={() => onHover(i)}
                onClick={() => onPick(reply)}
                data-testid="canned-option"
                data-shortcut={reply.shortcut}
              >
                <span className="canned-option-shortcut">/{reply.shortcut}</span>
                <span className="canned-option-text">{reply.text}</span>
              </li>
            ))}
          </ul>
          <p className="visually-hidden" role="status">
            {matches.length === 1 ? '1 canned reply' : `${matches.length} canned replies`}
          </p>
        </>
      )}
    </div>
  );
}
