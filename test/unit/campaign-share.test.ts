import { expect, it } from 'vitest';
import { formatShare } from '../../renderer/src/screens/campaigns/campaign-format.ts';

it('says a share rounded down: 100% only for all of them, <1% for a few', () => {
  expect(formatShare(302, 303)).toBe('99%');
  expect(formatShare(303, 303)).toBe('100%');
  expect(formatShare(1, 303)).toBe('<1%');
  expect(formatShare(0, 303)).toBe('0%');
  expect(formatShare(151, 303)).toBe('49%');
  expect(formatShare(1, 0)).toBe('—');
});
