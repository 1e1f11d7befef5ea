import {
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
} from 'react';
import './text-picker.css';

/** What is being typed for a picker: `/ship`, `@ana`. */
export interface PickerTrigger {
  /** Where the trigger character is. */
  start: number;
  /** The caret: the trigger runs from `start` to here. */
  end: number;
  /** What follows the trigger character. */
  query: string;
}

interface TextPickerOptions<T> {
  text: string;
  setText: (text: string) => void;
  textarea: RefObject<HTMLTextAreaElement | null>;
  /** The trigger the caret is in, or null (none, or the picker is off). */
  triggerAt: (text: string, caret: number) => PickerTrigger | null;
  /** What the trigger may mean, best first. */
  matchesFor: (trigger: PickerTrigger) => readonly T[];
  /** Opens with no match too (to say why there is none); otherwise only with matches. */
  openWhenEmpty: boolean;
  /** The text with the item in place of the trigger, and what to select in it then. */
  insert: (item: T, trigger: PickerTrigger) => { text: string; selection: [number, number] };
}

/**
 * A composer's autocomplete (the `/` canned replies, the `@` mentions): follows the caret into
 * a trigger, offers what it may mean, and takes the keys while open. The textarea keeps the
 * focus; the listbox's active option is announced through `aria-activedescendant`.
 */
export function useTextPicker<T>({
  text,
  setText,
  textarea,
  triggerAt,
  matchesFor,
  openWhenEmpty,
  insert,
}: TextPickerOptions<T>) {
  const [caret, setCaret] = useState<number | null>(null);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  // The highlighted option, for the query it was chosen under: a new query starts at the top.
  const [chosen, setChosen] = useState<{ query: string; index: number } | null>(null);
  const pendingSelection = useRef<[number, number] | null>(null);
  const listboxId = useId();

  const trigger = caret === null ? null : triggerAt(text, caret);
  const live = trigger !== null && trigger.start !== dismissedAt ? trigger : null;
  const matches = live ? matchesFor(live) : [];
  const open = live !== null && (openWhenEmpty || matches.length > 0);
  const active = live && chosen?.query === live.query ? chosen.index : 0;
  const activeIndex = Math.min(active, Math.max(0, matches.length - 1));
  const setActive = (index: number) => {
    if (live) setChosen({ query: live.query, index });
  };
  const optionId = (i: number) => `${listboxId}-option-${i}`;

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
    // Typing elsewhere forgets an Escape: the next trigger opens the picker again.
    if (dismissedAt !== null && triggerAt(el.value, at ?? -1)?.start !== dismissedAt) {
      setDismissedAt(null);
    }
  };

  const pick = (item: T) => {
    if (!live) return;
    const next = insert(item, live);
    pendingSelection.current = next.selection;
    const [from, to] = next.selection;
    setCaret(from === to ? from : null);
    // What was typed is replaced: this trigger needs no picker any more.
    setDismissedAt(live.start);
    setText(next.text);
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
        setDismissedAt(live.start);
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
        const item = matches[activeIndex];
        if (item === undefined) return false;
        pick(item);
        return take();
      }
      default:
        return false;
    }
  };

  const hasOptions = open && matches.length > 0;
  return {
    open,
    trigger: open ? live : null,
    matches,
    activeIndex,
    setActive,
    pick,
    onKeyDown,
    track,
    close: () => setCaret(null),
    listboxId,
    optionId,
    /** Spread on the textarea: it stays the focus, the listbox's active option is announced. */
    inputProps: {
      'aria-autocomplete': 'list' as const,
      'aria-controls': hasOptions ? listboxId : undefined,
      'aria-activedescendant': hasOptions ? optionId(activeIndex) : undefined,
    },
  };
}

export type TextPicker<T> = ReturnType<typeof useTextPicker<T>>;

interface PickerPanelProps<T> {
  picker: TextPicker<T>;
  /** The panel's heading (it names the listbox). */
  label: string;
  /** What shows instead of the options when there are none. */
  empty?: ReactNode;
  /** "3 canned replies", said to screen readers as the options change. */
  count: string;
  /** Each option's key, test id and data attributes. */
  optionProps: (item: T) => { key: string; testId: string; data?: Record<string, string> };
  renderOption: (item: T) => ReactNode;
  /** A class beside each option's own (its layout). */
  optionClassName?: string;
  testId: string;
}

/** Where a composer puts its pickers' panels: above the reply box, over the thread. */
export function PickerAnchor({ children }: { children: ReactNode }) {
  return <div className="picker-anchor">{children}</div>;
}

/** The panel a picker opens above the composer: its heading and keys, then its options. */
export function PickerPanel<T>({
  picker,
  label,
  empty,
  count,
  optionProps,
  renderOption,
  optionClassName,
  testId,
}: PickerPanelProps<T>) {
  const list = useRef<HTMLUListElement>(null);
  const { listboxId, optionId, matches, activeIndex, setActive, pick } = picker;
  const labelId = `${listboxId}-label`;

  useEffect(() => {
    list.current?.children[activeIndex]?.scrollIntoView({ block: 'nearest' });
  }, [activeIndex]);

  return (
    <div className="picker-panel" data-testid={testId}>
      <div className="picker-head">
        <span id={labelId}>{label}</span>
        <span className="picker-keys">↑ ↓ choose · Enter or Tab insert · Esc close</span>
      </div>
      {matches.length === 0 ? (
        empty
      ) : (
        <>
          <ul
            className="picker-options"
            role="listbox"
            id={listboxId}
            aria-labelledby={labelId}
            ref={list}
          >
            {matches.map((item, i) => {
              const { key, testId: optionTestId, data = {} } = optionProps(item);
              const dataAttributes = Object.fromEntries(
                Object.entries(data).map(([name, value]) => [`data-${name}`, value]),
              );
              return (
                <li
                  key={key}
                  id={optionId(i)}
                  role="option"
                  aria-selected={i === activeIndex}
                  className={`picker-option${optionClassName ? ` ${optionClassName}` : ''}${i === activeIndex ? ' active' : ''}`}
                  // The textarea keeps the focus (and its caret) while an option is clicked.
                  onMouseDown={(event) => event.preventDefault()}
                  onMouseMove={() => setActive(i)}
                  onClick={() => pick(item)}
                  data-testid={optionTestId}
                  {...dataAttributes}
                >
                  {renderOption(item)}
                </li>
              );
            })}
          </ul>
          <p className="visually-hidden" role="status">
            {count}
          </p>
        </>
      )}
    </div>
  );
}
