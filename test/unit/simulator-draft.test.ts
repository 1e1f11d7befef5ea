import { describe, expect, it } from 'vitest';
import { SIMULATOR_DEFAULTS, simulatorSettingsSchema } from '../../shared/schemas/simulator.ts';
import {
  checkSimulator,
  durationText,
  numberProblem,
  simulatorBody,
  simulatorDraftOf,
  tierOptions,
} from '../../renderer/src/screens/settings/simulator-draft.ts';

describe('Settings → Simulator checks (the shared schema, in the field’s unit)', () => {
  it('says each bound of the schema in words', () => {
    expect(numberProblem('throughputMps', '1001')).toBe('At most 1,000 messages a second.');
    expect(numberProblem('throughputMps', '0')).toBe('At least 1 message a second.');
    expect(numberProblem('emailRatePerSecond', '0')).toBe('At least 1 email a second.');
    expect(numberProblem('deliveryLatencyMs', '3600001')).toBe('At most 3,600,000 ms.');
    expect(numberProblem('seed', '-1')).toBe('At least 0.');
    expect(numberProblem('readLatencyMs', '2.5')).toBe('A whole number, without decimals.');
    expect(numberProblem('readLatencyMs', 'soon')).toBe('Enter a number.');
    expect(numberProblem('readLatencyMs', ' ')).toBe('Enter a number.');
    expect(numberProblem('readLatencyMs', ' 250 ')).toBeNull();
  });

  it('round-trips the defaults, unlimited tier included, into a body the schema takes', () => {
    const draft = simulatorDraftOf(SIMULATOR_DEFAULTS);
    expect(checkSimulator(draft)).toEqual({});
    expect(simulatorBody(draft)).toEqual(SIMULATOR_DEFAULTS);
    const unlimited = simulatorBody({ ...draft, messagingTier: 'unlimited' });
    expect(unlimited.messagingTier).toBeNull();
    expect(simulatorSettingsSchema.safeParse(unlimited).success).toBe(true);
  });

  it('offers the design’s tiers, and a saved tier that is none of them', () => {
    expect(tierOptions(2000).map((o) => o.value)).toEqual([
      '250',
      '2000',
      '10000',
      '100000',
      'unlimited',
    ]);
    expect(tierOptions(5000).at(-1)).toEqual({ value: '5000', label: '5,000 recipients a day' });
  });

  it('says durations in words', () => {
    expect(durationText(800)).toBe('800 ms');
    expect(durationText(2500)).toBe('2.5 s');
    expect(durationText(600_000)).toBe('10 min');
    expect(durationText(86_400_000)).toBe('1 d');
  });
});
