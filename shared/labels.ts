/**
 * How labels are written, stated once for the API, the CSV import and every label input of the
 * UI. No zod here: the renderer imports this at runtime, and zod's code generator breaks the
 * page's CSP.
 */

/** At most this many labels on one contact. */
export const MAX_LABELS = 50;
/** At most this many characters in one label. */
export const MAX_LABEL_LENGTH = 64;

/**
 * Where one label ends and the next begins: a comma or a semicolon (people type either; CSV
 * exports use `;` inside a comma-separated file), `|`, or Google Contacts' ` ::: `.
 */
const SEPARATOR = /\s*:::\s*|[,;|]/;

/** The rule in words, for hints and help texts. */
export const LABEL_SEPARATOR_HINT = 'Separate labels with commas or semicolons.';

/** True when a single label holds a separator, so it would read back as several. */
export const hasLabelSeparator = (label: string): boolean => SEPARATOR.test(label);

/**
 * Splits typed or imported text into labels: separators as above, surrounding spaces trimmed,
 * empty ones and repeats dropped (first spelling kept). `"vip,wholesale"` is two labels.
 */
export function splitLabels(text: string): string[] {
  return normalizeLabels(text.split(SEPARATOR));
}

/**
 * The labels of an imported cell. Google Contacts also writes its own system groups there
 * (`* myContacts ::: * starred ::: vip`): the `* ` marker goes, `myContacts` (everyone) is not a
 * label.
 */
export function labelsFromCell(text: string): string[] {
  return normalizeLabels(
    splitLabels(text)
      .map((l) => l.replace(/^\*\s*/, ''))
      .filter((l) => l !== 'myContacts'),
  );
}

/** Trims each label and drops empty ones and repeats, keeping the first occurrence's order. */
export function normalizeLabels(labels: readonly string[]): string[] {
  return [...new Set(labels.map((l) => l.trim()).filter(Boolean))];
}

/** What is wrong with a set of labels (already normalised), or null when it is fine. */
export function labelsProblem(labels: readonly string[]): string | null {
  if (labels.length > MAX_LABELS) return `a contact has at most ${MAX_LABELS} labels`;
  const long = labels.find((l) => l.length > MAX_LABEL_LENGTH);
  if (long !== undefined) {
    return `labels are at most ${MAX_LABEL_LENGTH} characters ("${long.slice(0, 20)}…" has ${long.length})`;
  }
  return null;
}
