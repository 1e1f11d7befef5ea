/**
 * Interactive lists' limits (spec §8, README "API"): the one statement of them,
 * checked by the core (400 `list_limits_exceeded` or `validation_error` naming the field) and by
 * the list editor as the user types. No zod, no Node, no DOM.
 */

export const LIST_LIMITS = {
  name: 200,
  header: 60,
  body: 1024,
  footer: 60,
  buttonText: 20,
  sections: 10,
  rowsPerSection: 10,
  sectionTitle: 24,
  rowId: 200,
  rowTitle: 24,
  rowDescription: 72,
} as const;

export interface ListRow {
  id: string;
  title: string;
  description?: string | null;
}

export interface ListSection {
  title: string;
  rows: ListRow[];
}

/** A list as written: the API's body and the editor's draft. */
export interface ListContent {
  name: string;
  header?: string | null;
  body: string;
  footer?: string | null;
  buttonText: string;
  sections: ListSection[];
}

export interface ListProblem {
  code: 'list_limits_exceeded' | 'validation_error';
  /** Dot path of the field, as the API's `param`: `sections.2.rows.0.title`. */
  param: string;
  message: string;
}

const chars = (n: number) => `${n} character${n === 1 ? '' : 's'}`;

/** Every rule the list breaks, in field order (empty when it is sendable). */
export function listProblems(list: ListContent): ListProblem[] {
  const out: ListProblem[] = [];
  const text = (
    param: string,
    value: string | null | undefined,
    max: number,
    required: boolean,
  ) => {
    const v = value ?? '';
    if (required && v.trim() === '') {
      out.push({ code: 'validation_error', param, message: `${param} is required` });
    } else if (v.length > max) {
      out.push({
        code: 'validation_error',
        param,
        message: `${param} is at most ${chars(max)} (it has ${v.length})`,
      });
    }
  };
  text('name', list.name, LIST_LIMITS.name, true);
  text('header', list.header, LIST_LIMITS.header, false);
  text('body', list.body, LIST_LIMITS.body, true);
  text('footer', list.footer, LIST_LIMITS.footer, false);
  text('buttonText', list.buttonText, LIST_LIMITS.buttonText, true);
  if (list.sections.length === 0) {
    out.push({ code: 'validation_error', param: 'sections', message: 'a list needs a section' });
  }
  if (list.sections.length > LIST_LIMITS.sections) {
    out.push({
      code: 'list_limits_exceeded',
      param: 'sections',
      message: `a list has at most ${LIST_LIMITS.sections} sections (it has ${list.sections.length})`,
    });
  }
  const seen = new Map<string, string>();
  list.sections.forEach((section, s) => {
    text(`sections.${s}.title`, section.title, LIST_LIMITS.sectionTitle, true);
    if (section.rows.length === 0) {
      out.push({
        code: 'validation_error',
        param: `sections.${s}.rows`,
        message: `section ${s + 1} needs a row`,
      });
    }
    if (section.rows.length > LIST_LIMITS.rowsPerSection) {
      out.push({
        code: 'list_limits_exceeded',
        param: `sections.${s}.rows`,
        message: `a section has at most ${LIST_LIMITS.rowsPerSection} rows (section ${s + 1} has ${section.rows.length})`,
      });
    }
    section.rows.forEach((row, r) => {
      const at = `sections.${s}.rows.${r}`;
      text(`${at}.id`, row.id, LIST_LIMITS.rowId, true);
      text(`${at}.title`, row.title, LIST_LIMITS.rowTitle, true);
      text(`${at}.description`, row.description, LIST_LIMITS.rowDescription, false);
      const first = seen.get(row.id);
      if (row.id && first !== undefined) {
        out.push({
          code: 'validation_error',
          param: `${at}.id`,
          message: `row id "${row.id}" is used twice (also at ${first}); row ids are unique in a list`,
        });
      } else if (row.id) seen.set(row.id, `${at}.id`);
    });
  });
  return out;
}

/** How many rows the list has in all (a provider may cap the total). */
export const rowCount = (list: Pick<ListContent, 'sections'>): number =>
  list.sections.reduce((n, s) => n + s.rows.length, 0);

/**
 * Meta's WhatsApp Cloud API takes at most 10 rows in one list, across its sections (design.md §5);
 * the spec's lists (and the simulated channel) take 10 per section. A live send of a longer list
 * through the Cloud API is refused with 400 `list_limits_exceeded`; the editor warns before saving.
 */
export const CLOUD_API_LIST_ROWS = 10;

/** Why the WhatsApp Cloud API would refuse this list, or null when it takes it. */
export function cloudApiListProblem(list: Pick<ListContent, 'sections'>): ListProblem | null {
  const rows = rowCount(list);
  if (rows <= CLOUD_API_LIST_ROWS) return null;
  return {
    code: 'list_limits_exceeded',
    param: 'sections',
    message: `the WhatsApp Cloud API takes at most ${CLOUD_API_LIST_ROWS} rows in a list in all, sections included (this list has ${rows})`,
  };
}

/** The list's text as a message shows it (header, body, footer), for previews and search. */
export const listText = (list: Pick<ListContent, 'header' | 'body' | 'footer'>): string =>
  [list.header, list.body, list.footer].filter((t): t is string => Boolean(t?.trim())).join('\n\n');
