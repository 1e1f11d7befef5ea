/**
 * `{{contact.*}}` placeholders: the one rule for text filled in per contact. Canned replies use it
 * (checked by the core on save, filled by the composer on insert), and campaign variables and
 * email campaigns name the same fields (design.md §4), so they share this module.
 *
 * Known placeholders: `{{contact.name}}`, `{{contact.phone}}`, `{{contact.email}}` and
 * `{{contact.attributes.KEY}}` (KEY as the contact's attribute is named, 1–64 characters, no
 * braces). Spaces just inside the braces are allowed: `{{ contact.name }}`. Anything else between
 * `{{` and `}}` is an unknown placeholder. No zod, no Node, no DOM: the core and the renderer
 * both import it.
 */

export type ContactField = 'name' | 'phone' | 'email';

export interface ContactPlaceholder {
  /** The placeholder as written in the text, braces included. */
  raw: string;
  /** Where it starts and ends (exclusive) in the text. */
  start: number;
  end: number;
  /** What it reads: a contact field or one attribute. */
  source: { field: ContactField } | { attribute: string };
}

/** What a placeholder is filled from: the API's contact carries all of it. */
export interface PlaceholderContact {
  name: string | null;
  phone: string;
  email: string | null;
  attributes: Record<string, string | number | boolean | null>;
}

export const PLACEHOLDER_HELP =
  '{{contact.name}}, {{contact.phone}}, {{contact.email}} or {{contact.attributes.KEY}}';

const FIELDS: readonly ContactField[] = ['name', 'phone', 'email'];
const ATTRIBUTE_PREFIX = 'contact.attributes.';
const ATTRIBUTE_KEY_MAX = 64;

/** Any `{{…}}` without braces inside: a placeholder, known or not. */
const BRACES = /\{\{([^{}]*)\}\}/g;

function sourceOf(inner: string): ContactPlaceholder['source'] | null {
  const path = inner.trim();
  if (path.startsWith('contact.')) {
    const field = path.slice('contact.'.length);
    if ((FIELDS as readonly string[]).includes(field)) return { field: field as ContactField };
  }
  if (path.startsWith(ATTRIBUTE_PREFIX)) {
    const key = path.slice(ATTRIBUTE_PREFIX.length);
    if (key.length > 0 && key.length <= ATTRIBUTE_KEY_MAX) return { attribute: key };
  }
  return null;
}

/** The text's placeholders in order, and the `{{…}}` that are not one (as written). */
export function parsePlaceholders(text: string): {
  placeholders: ContactPlaceholder[];
  unknown: string[];
} {
  const placeholders: ContactPlaceholder[] = [];
  const unknown: string[] = [];
  for (const m of text.matchAll(BRACES)) {
    const source = sourceOf(m[1]!);
    const start = m.index;
    if (source) placeholders.push({ raw: m[0], start, end: start + m[0].length, source });
    else unknown.push(m[0]);
  }
  return { placeholders, unknown };
}

/** A placeholder's value for a contact, or null when the contact has none (empty counts as none). */
export function placeholderValue(
  source: ContactPlaceholder['source'],
  contact: PlaceholderContact,
): string | null {
  const value =
    'field' in source ? contact[source.field] : (contact.attributes[source.attribute] ?? null);
  if (value === null) return null;
  const text = String(value);
  return text.trim() === '' ? null : text;
}

/** A placeholder the contact had no value for, where it stayed in the rendered text. */
export interface MissingPlaceholder {
  raw: string;
  start: number;
  end: number;
}

/**
 * Fills the text's placeholders from the contact. A placeholder without a value stays as written
 * (so a person sees what is missing and fills it) and is listed with its place in the output;
 * unknown `{{…}}` are left alone.
 */
export function renderPlaceholders(
  text: string,
  contact: PlaceholderContact,
): { text: string; missing: MissingPlaceholder[] } {
  const { placeholders } = parsePlaceholders(text);
  let out = '';
  let from = 0;
  const missing: MissingPlaceholder[] = [];
  for (const p of placeholders) {
    out += text.slice(from, p.start);
    const value = placeholderValue(p.source, contact);
    if (value === null) {
      missing.push({ raw: p.raw, start: out.length, end: out.length + p.raw.length });
      out += p.raw;
    } else {
      out += value;
    }
    from = p.end;
  }
  out += text.slice(from);
  return { text: out, missing };
}
