import { parsePhoneNumberFromString, validatePhoneNumberLength } from 'libphonenumber-js/max';

/**
 * The simulated channel's magic numbers (README "API"): accepted although no real numbering
 * plan has them.
 */
export const MAGIC_NUMBERS = {
  alwaysFails: '+15550000001',
  failsOnceThenSucceeds: '+15550000002',
  deliveredNeverRead: '+15550000003',
} as const;

const MAGIC = new Set<string>(Object.values(MAGIC_NUMBERS));

/** Why a phone number was refused, in words a person can act on. */
export type PhoneCheck = { ok: true; phone: string } | { ok: false; reason: string };

/**
 * Validates and normalises a phone number to E.164, saying what is wrong when it cannot.
 * The input must be in international format with a leading `+`; spaces, dashes (also typographic
 * ones), dots, slashes and parentheses are tolerated, and full-width forms (`＋４９…`, as Japanese and Chinese input
 * methods type them) are folded to ASCII first (NFKC).
 */
export function checkPhone(input: string): PhoneCheck {
  const folded = input.normalize('NFKC').trim();
  if (!folded) return { ok: false, reason: 'empty' };
  const plus = folded.startsWith('+');
  const digits = (plus ? folded.slice(1) : folded).replace(/[\s\-()./\u2010-\u2015\u2212]/g, '');
  if (!/^\d+$/.test(digits)) return { ok: false, reason: 'not a number' };
  if (!plus) {
    return {
      ok: false,
      reason: 'no country code (start with + and the country code, e.g. +49…)',
    };
  }
  const compact = '+' + digits;
  if (MAGIC.has(compact)) return { ok: true, phone: compact };
  switch (validatePhoneNumberLength(compact)) {
    case 'INVALID_COUNTRY':
      // Country codes are 1–3 digits and prefix-free: none of the shorter prefixes is known.
      return { ok: false, reason: `unknown country code +${digits.slice(0, 3)}` };
    case 'TOO_SHORT':
      return { ok: false, reason: 'too short' };
    case 'TOO_LONG':
      return { ok: false, reason: 'too long' };
    case 'NOT_A_NUMBER':
      return { ok: false, reason: 'not a number' };
    case 'INVALID_LENGTH':
    case undefined:
      break;
  }
  const parsed = parsePhoneNumberFromString(compact);
  if (!parsed) return { ok: false, reason: 'not a number' };
  if (digits.length > 15) return { ok: false, reason: 'too long' };
  if (!parsed.isValid()) {
    return {
      ok: false,
      reason: `not a valid number for country code +${parsed.countryCallingCode}`,
    };
  }
  return { ok: true, phone: parsed.number };
}

/** E.164, or null when the number is not a valid number of its country's numbering plan. */
export function normalizePhone(input: string): string | null {
  const checked = checkPhone(input);
  return checked.ok ? checked.phone : null;
}

/**
 * A `+` sent unencoded in a query string arrives as a space (`?phone=+4915…` reads
 * ` 4915…`). True for such a value, so the API can say how to send it instead of "not a number".
 */
export const looksLikeUnencodedPlus = (value: string): boolean => /^ +\d/.test(value);

/**
 * Meta's business-scoped user id (BSUID): a two-letter country code, a dot, `ENT.` for a parent
 * id shared by linked portfolios, then up to 128 letters and digits (`US.13491208655302741918`).
 */
const WA_USER_ID = /^[A-Z]{2}\.(?:ENT\.)?[A-Za-z0-9]{1,128}$/;
export const isWaUserId = (s: string): boolean => WA_USER_ID.test(s);

/** A contact as people read it: its name, else its phone, else its WhatsApp user id. */
export const contactLabel = (c: {
  name?: string | null;
  phone: string | null;
  waUserId?: string | null;
}): string => c.name || c.phone || (c.waUserId ? `WhatsApp user ${c.waUserId}` : 'Unknown');

/** The line under a contact's name: its phone, else its WhatsApp user id, said as such. */
export const contactHandle = (c: { phone: string | null; waUserId?: string | null }): string =>
  c.phone ?? (c.waUserId ? `WhatsApp user ${c.waUserId}` : '');
