/**
 * Settings → Simulator's model: the form's draft (numbers as typed), the checks made before
 * saving — the core's own schema (shared/schemas/simulator.ts), its bounds said in the field's
 * unit — and the body `PUT /api/simulator/settings` takes.
 */
import {
  MESSAGING_TIERS,
  simulatorSettingsSchema,
  type SimulatorSettings,
} from '../../../../shared/schemas/simulator.ts';

export type NumberKey = Exclude<keyof SimulatorSettings, 'messagingTier'>;

/** The tier as the select holds it: a number's text, or `unlimited`. */
export type TierValue = string;

export type SimulatorDraft = Record<NumberKey, string> & { messagingTier: TierValue };

/** The form's fields in the order it shows them (the first one wrong is focused). */
export const SIMULATOR_ORDER = [
  'throughputMps',
  'messagingTier',
  'emailRatePerSecond',
  'reviewDelayMs',
  'approvalWaitMs',
  'deliveryLatencyMs',
  'readLatencyMs',
  'seed',
] as const satisfies readonly (keyof SimulatorSettings)[];

/** Each number's unit, as its field shows it beside the input and in its messages. */
export const UNITS: Readonly<Record<NumberKey, { short: string; long: string }>> = {
  seed: { short: '', long: '' },
  reviewDelayMs: { short: 'ms', long: 'ms' },
  approvalWaitMs: { short: 'ms', long: 'ms' },
  deliveryLatencyMs: { short: 'ms', long: 'ms' },
  readLatencyMs: { short: 'ms', long: 'ms' },
  throughputMps: { short: 'msg/s', long: 'messages a second' },
  emailRatePerSecond: { short: 'emails/s', long: 'emails a second' },
};

const UNLIMITED = 'unlimited';

export const tierValue = (tier: SimulatorSettings['messagingTier']): TierValue =>
  tier === null ? UNLIMITED : String(tier);

const count = new Intl.NumberFormat('en');

/** A tier in words: "2,000 recipients a day" or "Unlimited". */
export const tierLabel = (tier: SimulatorSettings['messagingTier']): string =>
  tier === null ? 'Unlimited' : `${count.format(tier)} recipients a day`;

/** The tiers the select offers: design.md §4's, and the saved one if it is none of them. */
export function tierOptions(
  saved: SimulatorSettings['messagingTier'],
): { value: TierValue; label: string }[] {
  const tiers: SimulatorSettings['messagingTier'][] = [...MESSAGING_TIERS];
  if (!tiers.includes(saved)) tiers.push(saved);
  return tiers.map((tier) => ({ value: tierValue(tier), label: tierLabel(tier) }));
}

export function simulatorDraftOf(s: SimulatorSettings): SimulatorDraft {
  return {
    seed: String(s.seed),
    reviewDelayMs: String(s.reviewDelayMs),
    approvalWaitMs: String(s.approvalWaitMs),
    deliveryLatencyMs: String(s.deliveryLatencyMs),
    readLatencyMs: String(s.readLatencyMs),
    messagingTier: tierValue(s.messagingTier),
    throughputMps: String(s.throughputMps),
    emailRatePerSecond: String(s.emailRatePerSecond),
  };
}

/** A duration in milliseconds in words, for the hint beside the number: "2 s", "10 min". */
export function durationText(ms: number): string {
  if (ms < 1000) return `${count.format(ms)} ms`;
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  for (const [size, name] of units) {
    if (ms >= size) {
      const n = Math.round((ms / size) * 10) / 10;
      return `${count.format(n)} ${name}`;
    }
  }
  return `${count.format(ms)} ms`;
}

const numberOf = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text.trim()));

/** The first rule of the shared schema a typed number breaks, in the field's unit; null if none. */
export function numberProblem(key: NumberKey, text: string): string | null {
  if (text.trim() === '') return 'Enter a number.';
  const value = numberOf(text);
  const result = simulatorSettingsSchema.shape[key].safeParse(value);
  if (result.success) return null;
  const issue = result.error.issues[0];
  const bound = (n: number) => {
    const long = UNITS[key].long;
    // "1 message a second", "1,000 messages a second".
    const unit = n === 1 ? long.replace(/^(\w+?)s(?= )/, '$1') : long;
    return `${count.format(n)}${unit ? ` ${unit}` : ''}`;
  };
  if (issue?.code === 'too_big') return `At most ${bound(Number(issue.maximum))}.`;
  if (issue?.code === 'too_small') return `At least ${bound(Number(issue.minimum))}.`;
  return Number.isFinite(value) ? 'A whole number, without decimals.' : 'Enter a number.';
}

/** What is wrong before saving, by the API's `param`. */
export function checkSimulator(draft: SimulatorDraft): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const key of SIMULATOR_ORDER) {
    if (key === 'messagingTier') continue;
    const problem = numberProblem(key, draft[key]);
    if (problem) errors[key] = problem;
  }
  return errors;
}

/** The settings the draft holds (checked first), as `PUT /api/simulator/settings` takes them. */
export function simulatorBody(draft: SimulatorDraft): SimulatorSettings {
  return {
    seed: numberOf(draft.seed),
    reviewDelayMs: numberOf(draft.reviewDelayMs),
    approvalWaitMs: numberOf(draft.approvalWaitMs),
    deliveryLatencyMs: numberOf(draft.deliveryLatencyMs),
    readLatencyMs: numberOf(draft.readLatencyMs),
    messagingTier: draft.messagingTier === UNLIMITED ? null : Number(draft.messagingTier),
    throughputMps: numberOf(draft.throughputMps),
    emailRatePerSecond: numberOf(draft.emailRatePerSecond),
  };
}

/** The DOM id (and test id) of a setting's field. */
export const simulatorFieldId = (param: string): string => `sim-${param}`;

/** The form's param an answer's `param` names, when the form has it. */
export const simulatorParam = (param: string | undefined): string | null =>
  param && (SIMULATOR_ORDER as readonly string[]).includes(param) ? param : null;
