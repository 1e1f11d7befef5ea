import { describe, expect, it } from 'vitest';
import { createIds, randomBase62 } from '../../main/core/runtime.ts';
import { defaultDataDir } from '../../main/core/paths.ts';
import { electronNativeBinding, isInternalUrl, webPreferences } from '../../main/shell/policy.ts';
import { formatMicros, parseAmountToMicros } from '../../shared/money.ts';
import { normalizePhone } from '../../shared/phone.ts';
import { manualClock } from '../helpers.ts';

describe('money', () => {
  it('parses decimal amounts to integer micros exactly', () => {
    expect(parseAmountToMicros('25')).toBe(25_000_000);
    expect(parseAmountToMicros('25.50')).toBe(25_500_000);
    expect(parseAmountToMicros('0.000001')).toBe(1);
    expect(parseAmountToMicros('0.1')).toBe(100_000);
    for (const bad of ['', '-1', '1.0000001', '1e3', 'abc', '1,5'])
      expect(parseAmountToMicros(bad)).toBeNull();
  });
  it('formats micros for people', () => {
    expect(formatMicros(25_500_000)).toBe('$25.50');
    expect(formatMicros(1_234_567_890_000)).toBe('$1,234,567.89');
    expect(formatMicros(-5_000)).toBe('-$0.005');
    expect(formatMicros(0, 'EUR')).toBe('EUR 0.00');
  });
});

describe('phones', () => {
  it('normalises valid international numbers to E.164', () => {
    expect(normalizePhone('+1 (415) 555-2671')).toBe('+14155552671');
    expect(normalizePhone(' +49 151 12345678 ')).toBe('+4915112345678');
  });
  it('refuses numbers without + and country code, or outside any numbering plan', () => {
    for (const bad of ['4155552671', '+1415', '+999123456789', 'hello', '+1 555 123 4567']) {
      expect(normalizePhone(bad)).toBeNull();
    }
  });
  it('accepts the simulator’s magic numbers', () => {
    expect(normalizePhone('+15550000001')).toBe('+15550000001');
    expect(normalizePhone('+15550000003')).toBe('+15550000003');
  });
});

describe('ids and keys', () => {
  it('makes time-sortable ids, monotonic within a millisecond', () => {
    const clock = manualClock();
    const ids = createIds(clock, { bytes: (n) => Buffer.alloc(n, 255) });
    const a = ids('ct');
    const b = ids('ct');
    clock.advance(1);
    const c = ids('ct');
    expect(a).toMatch(/^ct_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect([c, b, a].sort()).toEqual([a, b, c]);
  });
  it('draws base62 secrets uniformly from the alphabet', () => {
    const s = randomBase62(
      { bytes: (n) => Buffer.from(Array.from({ length: n }, (_, i) => i % 256)) },
      40,
    );
    expect(s).toMatch(/^[A-Za-z0-9]{40}$/);
  });
});

describe('desktop shell policy', () => {
  it('locks the window down', () => {
    expect(webPreferences('/p.cjs')).toMatchObject({
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
    });
  });
  it('keeps navigation on the core’s origin', () => {
    expect(isInternalUrl('http://127.0.0.1:5000/#/wallet', 'http://127.0.0.1:5000')).toBe(true);
    expect(isInternalUrl('http://127.0.0.1:5001/', 'http://127.0.0.1:5000')).toBe(false);
    expect(isInternalUrl('https://example.com', 'http://127.0.0.1:5000')).toBe(false);
  });
  it('uses the Electron-ABI sqlite build only when unpackaged', () => {
    expect(electronNativeBinding('/app/.build', true)).toBeUndefined();
    expect(electronNativeBinding('/app/.build', false)).toBe(
      '/app/.build/electron-native/better_sqlite3.node',
    );
  });
  it('shares the desktop app’s data folder by default', () => {
    expect(defaultDataDir({ HOME: '/h', XDG_CONFIG_HOME: '/x' }, 'linux')).toBe('/x/Parley');
    expect(defaultDataDir({ PARLEY_DATA_DIR: '/d' }, 'linux')).toBe('/d');
  });
});

describe('leaving a page with unsaved changes', () => {
  it('asks "Discard changes?", staying by default; only the first button leaves', async () => {
    const { LEAVE_PAGE_QUESTION, leavesPage } = await import('../../main/shell/policy.ts');
    expect(LEAVE_PAGE_QUESTION.message).toBe('Discard changes?');
    expect(LEAVE_PAGE_QUESTION.buttons[LEAVE_PAGE_QUESTION.defaultId]).toBe('Stay');
    expect(LEAVE_PAGE_QUESTION.cancelId).toBe(LEAVE_PAGE_QUESTION.defaultId);
    expect(leavesPage(0)).toBe(true);
    expect(leavesPage(LEAVE_PAGE_QUESTION.cancelId)).toBe(false);
  });
});

describe('desktop notifications and badge', () => {
  it('accepts only well-formed notification requests, clipped', async () => {
    const { notificationFrom, badgeCount } = await import('../../main/shell/policy.ts');
    expect(notificationFrom({ title: 'Ann', body: 'Hi', conversationId: 'conv_01ABC' })).toEqual({
      title: 'Ann',
      body: 'Hi',
      conversationId: 'conv_01ABC',
    });
    expect(
      notificationFrom({ title: 'Ann', body: 'x'.repeat(500), conversationId: 'conv_1' })!.body,
    ).toHaveLength(200);
    for (const bad of [
      null,
      'x',
      { title: 1, body: 'b', conversationId: 'conv_1' },
      { title: 't', body: 'b', conversationId: '../etc' },
    ]) {
      expect(notificationFrom(bad)).toBeNull();
    }
    expect(badgeCount(3.7)).toBe(3);
    expect(badgeCount(-1)).toBe(0);
    expect(badgeCount('5')).toBe(0);
    expect(badgeCount(1e9)).toBe(9999);
  });
});
