/**
 * `{{contact.*}}` placeholders: the one rule for text filled in per contact. Canned replies use it
 * (checked by the core on save, filled by the composer on insert), and campaign variables and
 * email campaigns name the same fields (README "API"), so they share this module.
 *
 * Known placeholders: `{{contact.name}}`, `{{contact.firstName}}` (the name's first word), `{{contact.phone}}`, `{{contact.email}}` and
 * `{{contact.attributes.KEY}}` (KEY as the contact's attribute is named, 1–64 characters, no
 * braces). Spaces just inside the braces are allowed: `{{ contact.name }}`, and so is a fallback
 * for a missing value: `{{contact.attributes.code | "WELCOME"}}`. Anything else between `{{` and
 * `}}` is an unknown placeholder. The reading of `{{…}}`, own properties and the missing-value
 * rule are shared/template-strings.ts (README "Email", template strings), the same for workflows. No zod, no Node, no
 * DOM: the core and the renderer both import it.
 */
import type { FillOptions, TemplateRef } from './template-strings.ts';
import { fillTemplate, ownValue, parseTemplate, presentText } from './template-strings.ts';

export type ContactField = 'name' | 'firstName' | 'phone' | 'email';

/**
 * A contact's first name: the first word of their name ("Ana" of "Ana María López"), or null
 * when they have no name. What `{{contact.firstName}}` reads, in every kind of template.
 */
export function firstNameOf(name: string | null | undefined): string | null {
  const first = name?.trim().split(/\s+/)[0];
  return first ? first : null;
}

export interface ContactPlaceholder {
  /** The placeholder as written in the text, braces included. */
  raw: string;
  /** Where it starts and ends (exclusive) in the text. */
  start: number;
  end: number;
  /** What it reads: a contact field or one attribute. */
  source: { field: ContactField } | { attribute: string };
  /** The dot path it names (`contact.attributes.code`). */
  path: string;
  /** `{{contact.attributes.code | "WELCOME"}}`: what stands in for a missing value, or null. */
  fallback: string | null;
}

/** What a placeholder is filled from: the API's contact carries all of it. */
export interface PlaceholderContact {
  name: string | null;
  /** Null for a contact known only by its WhatsApp user id. */
  phone: string | null;
  email: string | null;
  attributes: Record<string, string | number | boolean | null>;
}

export const PLACEHOLDER_HELP =
  '{{contact.name}}, {{contact.firstName}}, {{contact.phone}}, {{contact.email}} or {{contact.attributes.KEY}}, optionally with a fallback: {{contact.firstName | "there"}}';

const FIELDS: readonly ContactField[] = ['name', 'firstName', 'phone', 'email'];
const ATTRIBUTE_PREFIX = 'contact.attributes.';
const ATTRIBUTE_KEY_MAX = 64;

function sourceOf(ref: TemplateRef): ContactPlaceholder['source'] | null {
  const path = ref.path;
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
  const { refs, malformed } = parseTemplate(text);
  const unknown = [...malformed];
  for (const ref of refs) {
    const source = sourceOf(ref);
    if (source) placeholders.push({ ...ref, source });
    else unknown.push(ref);
  }
  // As written, in the order of the text.
  return { placeholders, unknown: unknown.sort((a, b) => a.start - b.start).map((u) => u.raw) };
}

/**
 * A placeholder's value for a contact, or null when it counts as missing (README "Email", template strings: own
 * properties only, so `{{contact.attributes.constructor}}` is missing; empty counts as none).
 * The fallback is not applied here: see `placeholderText`.
 */
export function placeholderValue(
  source: ContactPlaceholder['source'],
  contact: PlaceholderContact,
): string | null {
  const value =
    'field' in source
      ? source.field === 'firstName'
        ? firstNameOf(contact.name)
        : contact[source.field]
      : ownValue(contact.attributes, source.attribute);
  return presentText(value);
}

/** What a placeholder renders as for a contact: its value, else its fallback, else null (missing). */
export const placeholderText = (p: ContactPlaceholder, contact: PlaceholderContact) =>
  placeholderValue(p.source, contact) ?? p.fallback;

/** A placeholder the contact had no value for, where it stayed in the rendered text. */
export interface MissingPlaceholder {
  raw: string;
  /** The dot path it names: the audience check counts recipients per path. */
  path: string;
  start: number;
  end: number;
}

/**
 * Fills a text's placeholders from the contact, fallbacks standing in for missing values.
 * `missing: 'keep'` (the default) leaves a placeholder without a value as written (so a person
 * sees what is missing and fills it); `'empty'` drops it (text that goes out unseen). Either way
 * it is listed with its place in the output; unknown `{{…}}` are left alone.
 */
export function renderPlaceholders(
  text: string,
  contact: PlaceholderContact,
  opts: FillOptions = { missing: 'keep' },
): { text: string; missing: MissingPlaceholder[] } {
  return fillTemplate(
    text,
    (ref) => {
      const source = sourceOf(ref);
      return source ? placeholderValue(source, contact) : undefined;
    },
    opts,
  );
}
