/**
 * Email rules the core and the renderer share (README "Email"): what counts as an
 * address, the size limits, and how `{{contact.*}}` placeholders fill an email. No zod, no Node,
 * no DOM: both sides import it.
 */
import isEmail from 'validator/lib/isEmail.js';
import type { MissingPlaceholder, PlaceholderContact } from './placeholders.ts';
import { parsePlaceholders, renderPlaceholders } from './placeholders.ts';

/** RFC 5321's path limit (256 with the angle brackets) leaves 254 for the address itself. */
const ADDRESS_MAX = 254;

/**
 * Field limits, in characters. The subject stays well under RFC 5322's 998-character line so it
 * survives encoding; the bodies are capped so one campaign cannot hold the runner's memory.
 */
export const EMAIL_LIMITS = {
  subject: 200,
  fromName: 100,
  html: 512 * 1024,
  text: 256 * 1024,
  name: 200,
} as const;

/**
 * A bare address a server will route: a dotted domain with a TLD, no display name, no IP
 * literal (`a@b`, `x@localhost` and `Ada <ada@example.com>` are refused).
 */
export function isEmailAddress(s: string): boolean {
  if (s.length === 0 || s.length > ADDRESS_MAX) return false;
  return isEmail(s, { allow_display_name: false, require_tld: true, allow_ip_domain: false });
}

/** The part after the last `@`, lower-cased: domains are case-insensitive, local parts are not. */
export function emailDomain(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Safe both between tags and inside a quoted attribute value. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/**
 * Unlike a canned reply, an email goes out unseen: a placeholder the contact has no value for
 * (and no fallback: `{{contact.name | "there"}}`) renders empty rather than as `{{…}}` in front
 * of the recipient; the audience check names such placeholders before launch. Unknown `{{…}}`
 * stay as written (validation reports them before a campaign can launch).
 */
export function renderEmail(
  template: string,
  contact: PlaceholderContact,
  escape?: (s: string) => string,
): { text: string; missing: MissingPlaceholder[] } {
  return renderPlaceholders(template, contact, { missing: 'empty', ...(escape ? { escape } : {}) });
}

/** Fills a subject or plain-text body. */
export function renderEmailText(template: string, contact: PlaceholderContact): string {
  return renderEmail(template, contact).text;
}

/** Fills an HTML body; a contact's values (and fallbacks) are text, so they are escaped, never markup. */
export function renderEmailHtml(template: string, contact: PlaceholderContact): string {
  return renderEmail(template, contact, escapeHtml).text;
}

/** The unknown placeholders in a subject or body, as written and once each, for the message. */
export function emailPlaceholderProblems(text: string): string[] {
  return [...new Set(parsePlaceholders(text).unknown)];
}
