import { describe, expect, it } from 'vitest';
import {
  hasLabelSeparator,
  labelsFromCell,
  labelsProblem,
  MAX_LABEL_LENGTH,
  MAX_LABELS,
  splitLabels,
} from '../../shared/labels.ts';

describe('the label rule (shared by the API, the CSV import and the UI)', () => {
  it('splits on commas and semicolons, trims, drops empties and repeats', () => {
    expect(splitLabels('vip,wholesale')).toEqual(['vip', 'wholesale']);
    expect(splitLabels(' vip ;  retail,, vip ; ')).toEqual(['vip', 'retail']);
    expect(splitLabels('a|b ::: c')).toEqual(['a', 'b', 'c']);
    expect(splitLabels('two words, three more words')).toEqual(['two words', 'three more words']);
    expect(splitLabels('   ')).toEqual([]);
  });

  it("reads Google Contacts' group cells without its system groups", () => {
    expect(labelsFromCell('* myContacts ::: * starred ::: vip')).toEqual(['starred', 'vip']);
    expect(labelsFromCell('vip;vip,* vip')).toEqual(['vip']);
  });

  it('names what breaks the limits', () => {
    expect(labelsProblem(['vip'])).toBeNull();
    expect(labelsProblem(Array.from({ length: MAX_LABELS + 1 }, (_, i) => `l${i}`))).toMatch(
      /at most 50 labels/,
    );
    expect(labelsProblem(['x'.repeat(MAX_LABEL_LENGTH + 1)])).toMatch(/at most 64 characters/);
  });

  it('tells a label that would read back as several', () => {
    expect(hasLabelSeparator('vip,wholesale')).toBe(true);
    expect(hasLabelSeparator('a;b')).toBe(true);
    expect(hasLabelSeparator('big spender')).toBe(false);
  });
});
