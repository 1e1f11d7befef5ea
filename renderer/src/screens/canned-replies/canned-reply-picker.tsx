import { useEffect, type RefObject } from 'react';
import { renderPlaceholders, type PlaceholderContact } from '../../../../shared/placeholders.ts';
import type { CannedReply } from '../../../../shared/schemas/index.ts';
import { PickerPanel, useTextPicker, type PickerTrigger } from '../../components/text-picker.tsx';
import { matchCannedReplies, useCannedReplies } from '../../stores/canned-replies.ts';
import { hrefFor } from '../../stores/route.ts';
import './canned-replies.css';

/** `/` at the start of the text or after a space, then what is typed up to the caret. */
const TRIGGER = /(?:^|\s)\/([a-z0-9_-]*)$/i;

function triggerAt(text: string, caret: number): PickerTrigger | null {
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

  useEffect(() => ensureLibrary(), [ensureLibrary]);

  const picker = useTextPicker<CannedReply>({
    text,
    setText,
    textarea,
    triggerAt,
    matchesFor: (trigger) => matchCannedReplies(library, trigger.query),
    // An empty list says why (loading, none yet, none matching) and where to make one.
    openWhenEmpty: true,
    insert: (reply, trigger) => {
      const filled = renderPlaceholders(reply.text, contact);
      const first = filled.missing[0];
      const end = trigger.start + filled.text.length;
      return {
        text: text.slice(0, trigger.start) + filled.text + text.slice(trigger.end),
        selection: first ? [trigger.start + first.start, trigger.start + first.end] : [end, end],
      };
    },
  });

  // Each time the picker opens, pick up replies others saved since the library was read.
  const { open } = picker;
  useEffect(() => {
    if (open) refreshLibrary();
  }, [open, refreshLibrary]);

  const query = picker.trigger?.query ?? '';
  const empty =
    libraryStatus === 'loading' || libraryStatus === 'idle'
      ? 'Loading canned replies…'
      : libraryStatus === 'error'
        ? 'Canned replies could not be loaded.'
        : query
          ? `No canned reply matches /${query}.`
          : 'No canned replies yet.';

  return {
    ...picker,
    picker: open ? (
      <PickerPanel
        picker={picker}
        label="Canned replies"
        testId="canned-picker"
        empty={
          <p className="picker-empty" role="status" data-testid="canned-picker-empty">
            {empty} <a href={hrefFor('canned-replies')}>Manage canned replies</a>
          </p>
        }
        count={
          picker.matches.length === 1 ? '1 canned reply' : `${picker.matches.length} canned replies`
        }
        optionProps={(reply) => ({
          key: reply.id,
          testId: 'canned-option',
          data: { shortcut: reply.shortcut },
        })}
        renderOption={(reply) => (
          <>
            <span className="canned-option-shortcut">/{reply.shortcut}</span>
            <span className="canned-option-text">{reply.text}</span>
          </>
        )}
      />
    ) : null,
  };
}
