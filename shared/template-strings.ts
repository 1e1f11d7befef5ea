/**
 * Template strings (README "Email", template strings): the one reading of `{{…}}` for campaigns, workflows, email
 * and canned replies. A reference is a dot path with an optional fallback:
 * `{{contact.attributes.code | "WELCOME"}}`. Its value is found through own properties only
 * (`Object.hasOwn` at every step, so `{{payload.constructor}}` finds nothing) and is never a
 * function. The missing-value rule: no value, null, a function, or text that is empty once
 * trimmed is missing; a reference with a fallback is never missing (the fallback stands in).
 * No zod, no Node, no DOM: the core and the renderer both import it.
 */

/** One `{{…}}` of a text that reads as a reference. */
export interface TemplateRef {
  /** As written, braces included. */
  raw: string;
  /** Where it starts and ends (exclusive) in the text. */
  start: number;
  end: number;
  /** The dot path, trimmed: `contact.attributes.code`. */
  path: string;
  /** The quoted fallback, unescaped; null when none is given. */
  fallback: string | null;
}

/** Any `{{…}}` without braces inside. */
const BRACES = /\{\{([^{}]*)\}\}/g;
/**
 * `path` or `path | "fallback"` (the fallback in double quotes, `\"` and `\\` escaped). A path
 * may hold inner spaces (an attribute named `First Name`), not quotes or bars.
 */
const INNER = /^\s*([^\s|"](?:[^|"]*[^\s|"])?)\s*(?:\|\s*"((?:[^"\\]|\\.)*)"\s*)?$/;

/** A reference's name as the audience check and messages show it: `{{contact.name}}`. */
export const refName = (path: string): string => `{{${path}}}`;

/** The text's references in order, and the `{{…}}` that do not parse (as written). */
export function parseTemplate(text: string): {
  refs: TemplateRef[];
  malformed: { raw: string; start: number }[];
} {
  const refs: TemplateRef[] = [];
  const malformed: { raw: string; start: number }[] = [];
  for (const m of text.matchAll(BRACES)) {
    const inner = INNER.exec(m[1]!);
    if (!inner) {
      malformed.push({ raw: m[0], start: m.index });
      continue;
    }
    refs.push({
      raw: m[0],
      start: m.index,
      end: m.index + m[0].length,
      path: inner[1]!,
      fallback: inner[2] === undefined ? null : inner[2].replace(/\\(.)/g, '$1'),
    });
  }
  return { refs, malformed };
}

/**
 * What a dot path reads from `root`: own properties only at every step, never a function.
 * Undefined when any step is missing.
 */
export function ownValue(root: unknown, path: string): unknown {
  let value: unknown = root;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) {
      return undefined;
    }
    value = (value as Record<string, unknown>)[part];
  }
  return typeof value === 'function' ? undefined : value;
}

/** A value as text, or null when it counts as missing. Objects and arrays are their JSON. */
export function presentText(value: unknown): string | null {
  if (value === undefined || value === null || typeof value === 'function') return null;
  if (typeof value === 'symbol') return null;
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.trim() === '' ? null : text;
}

/** A reference that had no value (and no fallback), with its place in the rendered text. */
export interface MissingRef {
  raw: string;
  path: string;
  start: number;
  end: number;
}

export interface FillOptions {
  /**
   * What a missing reference becomes: `keep` leaves it as written (a person fills it in: canned
   * replies, the campaign check), `empty` removes it (text that goes out unseen: email, workflows).
   */
  missing: 'keep' | 'empty';
  /** Applied to values and fallbacks, never to the text around them (HTML escaping). */
  escape?: (s: string) => string;
}

/**
 * Fills a text's references. `value(ref)` answers a reference's value as text, null when missing,
 * or undefined for a reference it does not know (left as written, never counted as missing).
 */
export function fillTemplate(
  text: string,
  value: (ref: TemplateRef) => string | null | undefined,
  opts: FillOptions,
): { text: string; missing: MissingRef[] } {
  const escape = opts.escape ?? ((s: string) => s);
  let out = '';
  let from = 0;
  const missing: MissingRef[] = [];
  for (const ref of parseTemplate(text).refs) {
    const v = value(ref);
    if (v === undefined) continue;
    out += text.slice(from, ref.start);
    from = ref.end;
    const filled = v ?? ref.fallback;
    if (filled !== null) {
      out += escape(filled);
    } else if (opts.missing === 'keep') {
      missing.push({
        raw: ref.raw,
        path: ref.path,
        start: out.length,
        end: out.length + ref.raw.length,
      });
      out += ref.raw;
    } else {
      missing.push({ raw: ref.raw, path: ref.path, start: out.length, end: out.length });
    }
  }
  return { text: out + text.slice(from), missing };
}

/** Fills references from an object (a workflow run's context): own properties only. */
export const fillFrom = (text: string, root: unknown, opts: FillOptions) =>
  fillTemplate(text, (ref) => presentText(ownValue(root, ref.path)), opts);

/**
 * Counts, over many recipients, which references were missing and for how many of them: the
 * audience check of campaigns and email. Each recipient counts once per reference.
 */
export function missingTally() {
  const counts = new Map<string, number>();
  return {
    add(missing: readonly { path: string }[]) {
      for (const path of new Set(missing.map((m) => m.path))) {
        counts.set(path, (counts.get(path) ?? 0) + 1);
      }
    },
    /** Most-missing first: `[{placeholder: "{{contact.name}}", recipients: 3}]`. */
    list: () =>
      [...counts]
        .map(([path, recipients]) => ({ placeholder: refName(path), recipients }))
        .sort((a, b) => b.recipients - a.recipients || a.placeholder.localeCompare(b.placeholder)),
  };
}
