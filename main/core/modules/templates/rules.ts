import { ApiError } from '../../../../shared/errors.ts';
import type { TemplateComponent } from '../../../../shared/schemas/templates.ts';
import {
  BUTTON_LIMITS,
  BUTTON_PHONE_PATTERN,
  BUTTON_URL_PATTERN,
  COPY_CODE_CATEGORY,
  firstVariableGap,
  malformedVariable,
  TEMPLATE_LIMITS as LIMITS,
  TEMPLATE_NAME_PATTERN,
  templateVariableNumbers,
  VARIABLE_PATTERN,
  variablesIn,
} from '../../../../shared/template-rules.ts';

const fail = (param: string, message: string): never => {
  throw new ApiError('validation_error', message, { param });
};

/**
 * The template component rules (README "API"). Returns the number of variables; throws a
 * validation_error naming the field otherwise.
 */
export function checkTemplate(
  name: string | null,
  category: string,
  components: TemplateComponent[],
): number {
  if (name !== null && !TEMPLATE_NAME_PATTERN.test(name)) {
    fail(
      'name',
      `name must be lowercase letters, digits and underscores (e.g. order_update), at most ${LIMITS.name} characters`,
    );
  }
  const seen = new Set<string>();
  let body: { text: string; index: number } | null = null;
  let header: { text: string; index: number } | null = null;
  components.forEach((c, i) => {
    const at = `components.${i}`;
    const odd = malformedVariable(c.text ?? '');
    if (odd) fail(`${at}.text`, `${odd} is not a variable: variables are written {{1}}, {{2}}, …`);
    if (seen.has(c.type)) fail(`${at}.type`, `only one ${c.type} component is allowed`);
    seen.add(c.type);
    if (c.type !== 'BUTTONS' && c.buttons)
      fail(`${at}.buttons`, 'only a BUTTONS component has buttons');
    if (c.type !== 'HEADER' && c.format) fail(`${at}.format`, 'format is used on a HEADER');
    switch (c.type) {
      case 'HEADER': {
        if ((c.format ?? 'TEXT') !== 'TEXT') fail(`${at}.format`, 'the header format must be TEXT');
        const text = c.text ?? '';
        if (!text.trim()) fail(`${at}.text`, 'the header needs text');
        if (text.length > LIMITS.header)
          fail(
            `${at}.text`,
            `the header is at most ${LIMITS.header} characters (it has ${text.length})`,
          );
        if (variablesIn(text).length > LIMITS.headerVariables)
          fail(`${at}.text`, `the header may have at most ${LIMITS.headerVariables} variable`);
        header = { text, index: i };
        break;
      }
      case 'BODY': {
        const text = c.text ?? '';
        if (!text.trim()) fail(`${at}.text`, 'the body needs text');
        if (text.length > LIMITS.body)
          fail(
            `${at}.text`,
            `the body is at most ${LIMITS.body} characters (it has ${text.length})`,
          );
        body = { text, index: i };
        break;
      }
      case 'FOOTER': {
        const text = c.text ?? '';
        if (!text.trim()) fail(`${at}.text`, 'the footer needs text');
        if (text.length > LIMITS.footer)
          fail(
            `${at}.text`,
            `the footer is at most ${LIMITS.footer} characters (it has ${text.length})`,
          );
        if (variablesIn(text).length > 0) fail(`${at}.text`, 'the footer cannot have variables');
        break;
      }
      case 'BUTTONS':
        checkButtons(c, at, category);
        break;
    }
  });
  if (!body) return fail('components', 'components must include a BODY');
  // Variables are numbered {{1}}…{{n}} across header and body, each number used, no gaps.
  const h = header as { text: string; index: number } | null;
  const b = body as { text: string; index: number };
  const numbers = templateVariableNumbers(h?.text ?? '', b.text);
  const n = numbers.length === 0 ? 0 : numbers[numbers.length - 1]!;
  const gap = firstVariableGap(numbers);
  if (gap !== null) {
    const where = h && variablesIn(h.text).length ? h.index : b.index;
    fail(
      `components.${where}.text`,
      `variables must be numbered {{1}} to {{${Math.max(n, gap)}}} without gaps: {{${gap}}} is missing`,
    );
  }
  return n;
}

function checkButtons(c: TemplateComponent, at: string, category: string) {
  const buttons = c.buttons ?? [];
  if (buttons.length === 0) fail(`${at}.buttons`, 'a BUTTONS component needs at least one button');
  if (buttons.length > LIMITS.buttons) fail(`${at}.buttons`, `at most ${LIMITS.buttons} buttons`);
  const limits = BUTTON_LIMITS;
  const counts: Record<string, number> = {};
  buttons.forEach((btn, j) => {
    const bat = `${at}.buttons.${j}`;
    counts[btn.type] = (counts[btn.type] ?? 0) + 1;
    if (counts[btn.type]! > limits[btn.type]) {
      fail(
        `${bat}.type`,
        `at most ${limits[btn.type]} ${btn.type} button${limits[btn.type] > 1 ? 's' : ''}`,
      );
    }
    if (!btn.text.trim()) fail(`${bat}.text`, 'a button needs text');
    if (btn.text.length > LIMITS.buttonText)
      fail(
        `${bat}.text`,
        `button text is at most ${LIMITS.buttonText} characters (it has ${btn.text.length})`,
      );
    if (btn.type === 'URL' && !BUTTON_URL_PATTERN.test(btn.url))
      fail(`${bat}.url`, 'url must be an http(s) URL');
    if (btn.type === 'PHONE_NUMBER' && !BUTTON_PHONE_PATTERN.test(btn.phoneNumber)) {
      fail(`${bat}.phoneNumber`, 'phoneNumber must be in international format, e.g. +14155552671');
    }
    if (btn.type === 'COPY_CODE' && category !== COPY_CODE_CATEGORY) {
      fail(`${bat}.type`, `COPY_CODE buttons are allowed in ${COPY_CODE_CATEGORY} templates only`);
    }
  });
}

/** Substitutes {{n}} with the variables' values. */
export function render(text: string, variables: Record<string, string>): string {
  return text.replace(VARIABLE_PATTERN, (m, k: string) => variables[String(Number(k))] ?? m);
}

/** The text a recipient sees: header, body and footer, variables substituted. */
export function renderTemplate(
  components: TemplateComponent[],
  variables: Record<string, string>,
): string {
  return components
    .filter((c) => c.type !== 'BUTTONS' && c.text)
    .map((c) => render(c.text!, variables))
    .join('\n\n');
}

const BANNED = [
  /\b(lottery|jackpot)\b/i,
  /\bcasino\b/i,
  /\bguaranteed (income|returns?|profit)\b/i,
  /\b(bit\.ly|tinyurl\.com|goo\.gl)\b/i,
  /\bcrypto(currency)? (giveaway|doubl)/i,
];

/**
 * The simulated provider's review: it rejects clear policy breaks, as the real one does.
 * Returns a rejection reason, or null to approve.
 */
export function policyViolation(components: TemplateComponent[]): string | null {
  const text = components
    .map((c) => [c.text ?? '', ...(c.buttons ?? []).map((b) => b.text)].join(' '))
    .join(' ');
  for (const re of BANNED) {
    const m = re.exec(text);
    if (m) return `PROMOTIONAL_POLICY: "${m[0]}" is not allowed by the channel's commerce policy`;
  }
  const body = components.find((c) => c.type === 'BODY')?.text ?? '';
  if (!body.replace(VARIABLE_PATTERN, '').replace(/[\s\p{P}]/gu, '')) {
    return 'INVALID_FORMAT: the body cannot consist of variables only';
  }
  return null;
}
