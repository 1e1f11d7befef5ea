/**
 * The list editor's model: the form's draft, the list it sends, and the rules checked as the
 * user types — the core's own (shared/list-rules.ts `listProblems`), each naming its field by the
 * same dot path the API's `error.param` uses, so an answer from the core lands on the same field.
 */
import {
  LIST_LIMITS,
  listProblems,
  type ListContent,
  type ListProblem,
} from '../../../../shared/list-rules.ts';
import type { InteractiveList } from '../../../../shared/schemas/interactive-lists.ts';

export { LIST_LIMITS };
export type { ListProblem };

export interface RowDraft {
  /** Stable React key; never sent. */
  key: string;
  id: string;
  title: string;
  description: string;
}

export interface SectionDraft {
  key: string;
  title: string;
  rows: RowDraft[];
}

export interface ListDraft {
  name: string;
  header: string;
  body: string;
  footer: string;
  buttonText: string;
  sections: SectionDraft[];
}

export type TextKey = 'name' | 'header' | 'body' | 'footer' | 'buttonText';

let seq = 0;
const nextKey = (): string => `k${++seq}`;

/** A row id no other row of the draft has: `row-1`, `row-2`, … */
export function freshRowId(draft: ListDraft): string {
  const taken = new Set(draft.sections.flatMap((s) => s.rows.map((r) => r.id)));
  let n = 1;
  while (taken.has(`row-${n}`)) n++;
  return `row-${n}`;
}

export const newRow = (draft: ListDraft): RowDraft => ({
  key: nextKey(),
  id: freshRowId(draft),
  title: '',
  description: '',
});

export const newSection = (draft: ListDraft): SectionDraft => ({
  key: nextKey(),
  title: '',
  rows: [newRow(draft)],
});

export function emptyDraft(): ListDraft {
  const draft: ListDraft = {
    name: '',
    header: '',
    body: '',
    footer: '',
    buttonText: '',
    sections: [],
  };
  draft.sections = [newSection(draft)];
  return draft;
}

export const draftFromList = (list: InteractiveList): ListDraft => ({
  name: list.name,
  header: list.header ?? '',
  body: list.body,
  footer: list.footer ?? '',
  buttonText: list.buttonText,
  sections: list.sections.map((section) => ({
    key: nextKey(),
    title: section.title,
    rows: section.rows.map((row) => ({
      key: nextKey(),
      id: row.id,
      title: row.title,
      description: row.description ?? '',
    })),
  })),
});

const optional = (text: string): string | null => (text.trim() ? text : null);

/** The list as the API takes it (and as `listProblems` checks it); blank optional texts are none. */
export const contentOf = (draft: ListDraft): ListContent & { header: string | null } => ({
  name: draft.name,
  header: optional(draft.header),
  body: draft.body,
  footer: optional(draft.footer),
  buttonText: draft.buttonText,
  sections: draft.sections.map((section) => ({
    title: section.title,
    rows: section.rows.map((row) => ({
      id: row.id,
      title: row.title,
      description: optional(row.description),
    })),
  })),
});

export const problemsOf = (draft: ListDraft): ListProblem[] => listProblems(contentOf(draft));

/** The DOM id (and test id) of the field a param names: `sections.0.rows.1.title` → `list-sections-0-rows-1-title`. */
export const fieldId = (param: string): string => `list-${param.replace(/\./g, '-')}`;

/** The value a param names in the draft, to tell a blank field from a wrong one. */
function valueAt(draft: ListDraft, param: string): unknown {
  let value: unknown = draft;
  for (const part of param.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * A field left blank (or a section left without rows): said once the user has been there, not
 * while the form is fresh. Wrong values (too long, a repeated row id, too many rows) show at once.
 */
export function isBlank(draft: ListDraft, param: string): boolean {
  const value = valueAt(draft, param);
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

/** Whether the form shows a field for this param (an answer about any other goes in a banner). */
export function isFieldParam(draft: ListDraft, param: string): boolean {
  const m = /^sections\.(\d+)(?:\.(title|rows)(?:\.(\d+)\.(id|title|description))?)?$/.exec(param);
  if (!m) return ['name', 'header', 'body', 'footer', 'buttonText', 'sections'].includes(param);
  const section = draft.sections[Number(m[1])];
  if (!section || !m[2]) return false;
  return m[3] === undefined || section.rows[Number(m[3])] !== undefined;
}

const LABELS: Record<string, string> = {
  name: 'Name',
  header: 'Header',
  body: 'Body',
  footer: 'Footer',
  buttonText: 'Button text',
  sections: 'Sections',
  title: 'Title',
  rows: 'Rows',
  id: 'Row ID',
  description: 'Description',
};

/** Where a param's field is, in words: "Section 2, row 1", or '' for the list's own fields. */
export function whereOf(param: string): string {
  const m = /^sections\.(\d+)(?:\.rows\.(\d+))?/.exec(param);
  if (!m) return '';
  const section = `Section ${Number(m[1]) + 1}`;
  return m[2] === undefined ? section : `${section}, row ${Number(m[2]) + 1}`;
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A rule's message in the form's words: the field's label instead of its path ("Title is at most
 * 24 characters (it has 25)"), other rows named by place ("also at section 1, row 2").
 */
export function fieldMessage(param: string, message: string): string {
  let text = message;
  if (text.startsWith(`${param} `)) {
    const last = param.split('.').pop() ?? param;
    text = `${LABELS[last] ?? last}${text.slice(param.length)}`;
  }
  text = text.replace(
    /sections\.(\d+)\.rows\.(\d+)(?:\.\w+)?/g,
    (_, s: string, r: string) => `section ${Number(s) + 1}, row ${Number(r) + 1}`,
  );
  return capitalised(text);
}

/** A rule's message with its place, for the line that says what blocks saving. */
export function blockerMessage(problem: ListProblem): string {
  const where = whereOf(problem.param);
  const text = fieldMessage(problem.param, problem.message);
  return where && !text.toLowerCase().startsWith(where.toLowerCase()) ? `${where}: ${text}` : text;
}

/** A row nothing was typed into (a new section's first row): pasted rows take its place. */
const isBlankRow = (row: RowDraft): boolean =>
  row.title.trim() === '' && row.description.trim() === '';

/** Every row id of the draft but those of the rows pasted rows replace. */
export function idsKept(draft: ListDraft, section: number): string[] {
  return draft.sections.flatMap((s, i) =>
    s.rows.filter((row) => i !== section || !isBlankRow(row)).map((row) => row.id),
  );
}

/** A title with a suffix, cut so it stays within the section title's limit. */
function suffixed(title: string, suffix: string): string {
  const room = LIST_LIMITS.sectionTitle - suffix.length;
  return title.trim() ? `${title.trim().slice(0, room).trimEnd()}${suffix}` : '';
}

/** Where pasted rows go: how many into the section, how many into new sections after it. */
export interface PastePlan {
  intoSection: number;
  /** The rows of each new section, in order. */
  newSections: number[];
  /** Rows that fit nowhere: the list has its most sections. */
  left: number;
}

/**
 * Pasted rows fill the section (after its rows, in place of a blank one) up to its limit; the
 * rest go into new sections right after it, as many as the list may still have.
 */
export function planPaste(draft: ListDraft, s: number, count: number): PastePlan {
  const section = draft.sections[s];
  const kept = section ? section.rows.filter((row) => !isBlankRow(row)).length : 0;
  const intoSection = Math.min(count, Math.max(0, LIST_LIMITS.rowsPerSection - kept));
  let rest = count - intoSection;
  const newSections: number[] = [];
  let sections = draft.sections.length;
  while (rest > 0 && sections < LIST_LIMITS.sections) {
    const n = Math.min(rest, LIST_LIMITS.rowsPerSection);
    newSections.push(n);
    rest -= n;
    sections++;
  }
  return { intoSection, newSections, left: rest };
}

/** The draft's sections with the pasted rows placed as `planPaste` says. */
export function withPastedRows(
  draft: ListDraft,
  s: number,
  rows: readonly { id: string; title: string; description: string }[],
): SectionDraft[] {
  const plan = planPaste(draft, s, rows.length);
  const drafts = rows.map((row) => ({ key: nextKey(), ...row }));
  const section = draft.sections[s]!;
  const filled: SectionDraft = {
    ...section,
    rows: [...section.rows.filter((row) => !isBlankRow(row)), ...drafts.slice(0, plan.intoSection)],
  };
  let at = plan.intoSection;
  const added = plan.newSections.map((n, i) => {
    const next: SectionDraft = {
      key: nextKey(),
      title: suffixed(section.title, ` (${i + 2})`),
      rows: drafts.slice(at, at + n),
    };
    at += n;
    return next;
  });
  return [...draft.sections.slice(0, s), filled, ...added, ...draft.sections.slice(s + 1)];
}

/**
 * A copy of a section right after it: the same title marked "(copy)" and the same rows, each
 * with a new id (row ids are unique in a list) — `track-order` → `track-order-2`.
 */
export function duplicateSection(draft: ListDraft, s: number): SectionDraft[] {
  const section = draft.sections[s]!;
  const taken = new Set(draft.sections.flatMap((x) => x.rows.map((row) => row.id)));
  const copy: SectionDraft = {
    key: nextKey(),
    title: suffixed(section.title, ' (copy)'),
    rows: section.rows.map((row) => {
      const id = copiedId(row.id, taken);
      taken.add(id);
      return { ...row, key: nextKey(), id };
    }),
  };
  return [...draft.sections.slice(0, s + 1), copy, ...draft.sections.slice(s + 1)];
}

/** A row id for a copy: `id-2`, `id-3`, … (a trailing `-n` counts on), within the id limit. */
function copiedId(id: string, taken: ReadonlySet<string>): string {
  const m = /^(.*?)-(\d+)$/.exec(id);
  const stem = (m ? m[1]! : id).slice(0, LIST_LIMITS.rowId - 5) || 'row';
  let n = m ? Number(m[2]) + 1 : 2;
  while (taken.has(`${stem}-${n}`)) n++;
  return `${stem}-${n}`;
}
