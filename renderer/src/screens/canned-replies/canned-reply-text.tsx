import {
  parsePlaceholders,
  placeholderText,
  type PlaceholderContact,
} from '../../../../shared/placeholders.ts';

/** The contact the editor's preview fills placeholders from. */
export const SAMPLE_CONTACT: PlaceholderContact = {
  name: 'Ada Lovelace',
  phone: '+14155552671',
  email: 'ada@example.com',
  attributes: { plan: 'Pro', order: 'A-1042' },
};

export const SAMPLE_DESCRIPTION =
  'Ada Lovelace · +14155552671 · ada@example.com · attributes plan = Pro, order = A-1042';

type Segment = { kind: 'text' | 'filled' | 'missing'; text: string };

function segments(text: string, contact: PlaceholderContact): Segment[] {
  const out: Segment[] = [];
  let from = 0;
  for (const p of parsePlaceholders(text).placeholders) {
    if (p.start > from) out.push({ kind: 'text', text: text.slice(from, p.start) });
    // A fallback (`{{contact.name | "there"}}`) stands in for a missing value.
    const value = placeholderText(p, contact);
    out.push(value === null ? { kind: 'missing', text: p.raw } : { kind: 'filled', text: value });
    from = p.end;
  }
  if (from < text.length) out.push({ kind: 'text', text: text.slice(from) });
  return out;
}

/**
 * A canned reply's text as a contact would get it: filled values marked, and a placeholder the
 * contact has no value for shown as it stays in the composer (for the agent to fill in).
 */
export function FilledText({ text, contact }: { text: string; contact: PlaceholderContact }) {
  return (
    <>
      {segments(text, contact).map((s, i) =>
        s.kind === 'text' ? (
          <span key={i}>{s.text}</span>
        ) : (
          <mark
            key={i}
            className={`canned-value canned-value-${s.kind}`}
            title={
              s.kind === 'missing' ? 'No value for this contact: the agent fills it in' : undefined
            }
          >
            {s.text}
          </mark>
        ),
      )}
    </>
  );
}
