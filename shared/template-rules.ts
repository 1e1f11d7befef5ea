/**
 * The template rules (README "API"), stated once: the core enforces them
 * (main/core/modules/templates/rules.ts) and the editor checks them as the user types. No zod
 * here: the renderer imports this at runtime, and zod's code generator breaks the page's CSP.
 */
import type { TemplateButton } from './schemas/templates.ts';

export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];

export type TemplateButtonType = TemplateButton['type'];

export const TEMPLATE_NAME_PATTERN = /^[a-z0-9_]{1,512}$/;
export const TEMPLATE_LANGUAGE_PATTERN = /^[a-z]{2,3}(_[A-Z]{2})?$/;

/** Lengths in characters, counts in items. */
export const TEMPLATE_LIMITS = {
  name: 512,
  header: 60,
  headerVariables: 1,
  body: 1024,
  footer: 60,
  buttons: 10,
  buttonText: 25,
} as const;

export const BUTTON_LIMITS: Readonly<Record<TemplateButtonType, number>> = {
  QUICK_REPLY: 10,
  URL: 2,
  PHONE_NUMBER: 1,
  COPY_CODE: 1,
};

/** The only category whose templates may carry a COPY_CODE button. */
export const COPY_CODE_CATEGORY: TemplateCategory = 'MARKETING';

export const BUTTON_URL_PATTERN = /^https?:\/\/\S+$/;
/** E.164: a + and 6 to 15 digits, the first not 0. */
export const BUTTON_PHONE_PATTERN = /^\+[1-9]\d{5,14}$/;

/** `{{1}}`, `{{ 2 }}`, …: global, for `matchAll` and `replace`. */
export const VARIABLE_PATTERN = /\{\{\s*(\d+)\s*\}\}/g;

/** Braces that look like a variable but are not `{{n}}`: `{{name}}`, `{{1}`, `{{ }}`. */
const MALFORMED_VARIABLE = /\{\{(?!\s*\d+\s*\}\})[^{}]*\}?\}?/;

/** The variable numbers in a text, in order of appearance (repeats included). */
export function variablesIn(text: string): number[] {
  return [...text.matchAll(VARIABLE_PATTERN)].map((m) => Number(m[1]));
}

/** The first thing in the text written like a variable that is not one, or null. */
export function malformedVariable(text: string): string | null {
  return MALFORMED_VARIABLE.exec(text)?.[0] ?? null;
}

/** The distinct variable numbers of header and body, ascending. */
export function templateVariableNumbers(header: string, body: string): number[] {
  return [...new Set([...variablesIn(header), ...variablesIn(body)])].sort((a, b) => a - b);
}

/**
 * Variables are numbered {{1}}…{{n}} across header and body, each number used: the first
 * missing one, or null when there is no gap. `numbers` are distinct and ascending.
 */
export function firstVariableGap(numbers: readonly number[]): number | null {
  for (let i = 0; i < numbers.length; i++) {
    if (numbers[i] !== i + 1) return i + 1;
  }
  return null;
}

/**
 * The variable "Add variable" offers: the first gap in `numbers` (with {{1}} and {{3}} it is
 * {{2}}, which the template needs before it may be submitted), else the one after the last.
 * `numbers` are distinct and ascending.
 */
export function nextVariableNumber(numbers: readonly number[]): number {
  return firstVariableGap(numbers) ?? numbers.length + 1;
}

/** How many buttons of each type. */
export function buttonCounts(
  buttons: readonly { type: TemplateButtonType }[],
): Record<TemplateButtonType, number> {
  const counts: Record<TemplateButtonType, number> = {
    QUICK_REPLY: 0,
    URL: 0,
    PHONE_NUMBER: 0,
    COPY_CODE: 0,
  };
  for (const b of buttons) counts[b.type] += 1;
  return counts;
}

/**
 * One language, however it is spelled: Meta's webhooks and lists write `en_US`, some of its
 * payloads and people write `en-US` or `EN_us`.
 */
export const sameLanguage = (a: string, b: string): boolean =>
  a.replace(/-/g, '_').toLowerCase() === b.replace(/-/g, '_').toLowerCase();
