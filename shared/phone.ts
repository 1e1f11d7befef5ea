import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * The simulated channel's magic numbers (design.md §4): accepted although no real numbering
 * plan has them.
 */
export const MAGIC_NUMBERS = {
  alwaysFails: '+15550000001',
  failsOnceThenSucceeds: '+15550000002',
  deliveredNeverRead: '+15550000003',
} as const;

const MAGIC = new Set<string>(Object.values(MAGIC_NUMBERS));

/**
 * Validates and normalises a phone number to E.164. The input must be in international format
 * with a leading `+`; spaces, dashes, dots and parentheses are tolerated. Returns null when the
 * number is not a valid number of its country's numbering plan.
 */
export function normalizePhone(input: string): string | null {
  const trimmed = input.trim();
  if (!trimmed.startsWith('+')) return null;
  const compact = '+' + trimmed.slice(1).replace(/[\s\-().]/g, '');
  if (!/^\+\d{6,15}$/.test(compact)) return null;
  if (MAGIC.has(compact)) return compact;
  const parsed = parsePhoneNumberFromString(compact);
  if (!parsed || !parsed.isValid()) return null;
  return parsed.number;
}
