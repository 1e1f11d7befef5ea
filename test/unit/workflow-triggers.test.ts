/**
 * How a `message_received` trigger reads a message (shared/workflow-triggers.ts): keywords and
 * messages with accents and case aside; anywhere, as a whole word, or as the whole message.
 */
import { describe, expect, it } from 'vitest';
import { matchesKeywords } from '../../shared/workflow-triggers.ts';

describe('matchesKeywords', () => {
  it('any: a substring, accents and case aside', () => {
    expect(matchesKeywords('Je voudrais un CAFÉ', ['cafe'], 'any')).toBe(true);
    expect(matchesKeywords('reorder', ['order'], 'any')).toBe(true);
    expect(matchesKeywords('nothing', ['order'])).toBe(false);
  });

  it('whole_word: bounded by anything but letters and digits, in any script', () => {
    expect(matchesKeywords('my order, please', ['order'], 'whole_word')).toBe(true);
    expect(matchesKeywords('reorder', ['order'], 'whole_word')).toBe(false);
    expect(matchesKeywords('order2', ['order'], 'whole_word')).toBe(false);
    expect(matchesKeywords('где мой заказ?', ['ЗАКАЗ'], 'whole_word')).toBe(true);
    expect(matchesKeywords('Track   my order', ['track my'], 'whole_word')).toBe(true);
  });

  it('exact: the whole message, spaces and punctuation around it aside', () => {
    expect(matchesKeywords('  Stop!! ', ['stop'], 'exact')).toBe(true);
    expect(matchesKeywords('stop now', ['stop'], 'exact')).toBe(false);
    expect(matchesKeywords('¿Ayuda?', ['ayuda'], 'exact')).toBe(true);
  });

  it('no keywords (or only blank ones): every message', () => {
    expect(matchesKeywords('anything', [])).toBe(true);
    expect(matchesKeywords('anything', undefined)).toBe(true);
    expect(matchesKeywords('anything', ['  '])).toBe(true);
  });
});
