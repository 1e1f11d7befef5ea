import { describe, expect, it } from 'vitest';
import { checkPhone, looksLikeUnencodedPlus, normalizePhone } from '../../shared/phone.ts';

const reason = (input: string) => {
  const checked = checkPhone(input);
  return checked.ok ? null : checked.reason;
};

describe('phone reasons', () => {
  it('says a number is too short', () => {
    expect(reason('+1415')).toBe('too short');
    expect(reason('+12')).toBe('too short');
  });

  it('says a number is too long', () => {
    expect(reason('+491511234567890123')).toBe('too long');
    expect(reason('+1 415 555 2671 2671 2671')).toBe('too long');
  });

  it('names an unknown country code', () => {
    expect(reason('+999123456789')).toBe('unknown country code +999');
    expect(reason('+999 1234 5678')).toBe('unknown country code +999');
  });

  it('says when the input is not a number at all', () => {
    expect(reason('hello')).toBe('not a number');
    expect(reason('+49 151 CALL-ME')).toBe('not a number');
    expect(reason('not-a-phone')).toBe('not a number');
  });

  it('asks for the country code when the + is missing', () => {
    expect(reason('4155552671')).toMatch(/^no country code/);
    expect(reason('06 12 34 56 78')).toMatch(/^no country code/);
  });

  it('says a well-formed number is outside its country’s numbering plan', () => {
    expect(reason('+1 555 123 4567')).toBe('not a valid number for country code +1');
  });

  it('normalises full-width digits and ＋ (NFKC) before parsing', () => {
    expect(normalizePhone('＋４９ １５１ １２３４５６７８')).toBe('+4915112345678');
    expect(normalizePhone('＋１（４１５）５５５−２６７１')).toBe('+14155552671');
    expect(checkPhone('+4915112345678')).toEqual({ ok: true, phone: '+4915112345678' });
  });

  it('recognises a + that a query string turned into a space', () => {
    expect(looksLikeUnencodedPlus(' 4915112345678')).toBe(true);
    expect(looksLikeUnencodedPlus('+4915112345678')).toBe(false);
    expect(looksLikeUnencodedPlus('4915112345678')).toBe(false);
    expect(looksLikeUnencodedPlus(' ')).toBe(false);
  });
});
