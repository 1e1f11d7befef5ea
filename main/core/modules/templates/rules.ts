import { ApiError } from '../../../../shared/errors.ts';
import type { TemplateComponent } from '../../../../shared/schemas/templates.ts';

export const NAME_PATTERN = /^[a-z0-9_]{1,512}$/;
const VARIABLE = /\{\{\s*(\d+)\s*\}\}/g;

const fail = (param: string, message: string): never => {
  throw new ApiError('validation_error', message, { param });
};

const variablesIn = (text: string) => [...text.matchAll(VARIABLE)].map((m) => Number(m[1]));

/**
 * The component rules of design.md §4 (Templates). Returns the number of variables; throws a
 * validation_error naming the field otherwise.
 */
export function checkTemplate(
  name: string | null,
  category: string,
  components: TemplateComponent[],
): number {
  if (name !== null && !NAME_PATTERN.test(name)) {
    fail(
      'name',
      'name must be lowercase letters, digits and underscores (e.g. order_update), at most 512 characters',
    );
  }
  const seen = new Set<string>();
  let body: { text: string; index: number } | null = null;
  let header: { text: string; index: number } | null = null;
  components.forEach((c, i) => {
    const at = `components.${i}`;
    const odd = /\{\{(?!\s*\d+\s*\}\})[^}]*\}\}/.exec(c.text ?? '');
    if (odd)
      fail(`${at}.text`, `${odd[0]} is not a variable: variables are written {{1}}, {{2}}, …`);
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
        if (text.length > 60)
          fail(`${at}.text`, `the header is at most 60 characters (it has ${text.length})`);
        if (variablesIn(text).length > 1)
          fail(`${at}.text`, 'the header may have at most 1 variable');
        header = { text, index: i };
        break;
      }
      case 'BODY': {
        const text = c.text ?? '';
        if (!text.trim()) fail(`${at}.text`, 'the body needs text');
        if (text.length > 1024)
          fail(`${at}.text`, `the body is at most 1024 characters (it has ${text.length})`);
        body = { text, index: i };
        break;
      }
      case 'FOOTER': {
        const text = c.text ?? '';
        if (!text.trim()) fail(`${at}.text`, 'the footer needs text');
        if (text.length > 60)
          fail(`${at}.text`, `the footer is at most 60 characters (it has ${text.length})`);
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
  const numbers = new Set([...(h ? variablesIn(h.text) : []), ...variablesIn(b.text)]);
  const n = numbers.size === 0 ? 0 : Math.max(...numbers);
  for (let k = 1; k <= n; k++) {
    if (!numbers.has(k)) {
      const where = h && variablesIn(h.text).length ? h.index : b.index;
      fail(
        `components.${where}.text`,
        `variables must be numbered {{1}} to {{${n}}} without gaps: {{${k}}} is missing`,
      );
    }
  }
  return n;
}

function checkButtons(c: TemplateComponent, at: string, category: string) {
  const buttons = c.buttons ?? [];
  if (buttons.length === 0) fail(`${at}.buttons`, 'a BUTTONS component needs at least one button');
  if (buttons.length > 10) fail(`${at}.buttons`, 'at most 10 buttons');
  const limits = { QUICK_REPLY: 10, URL: 2, PHONE_NUMBER: 1, COPY_CODE: 1 } as const;
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
    if (btn.text.length > 25)
      fail(`${bat}.text`, `button text is at most 25 characters (it has ${btn.text.length})`);
    if (btn.type === 'URL' && !/^https?:\/\/\S+$/.test(btn.url))
      fail(`${bat}.url`, 'url must be an http(s) URL');
    if (btn.type === 'PHONE_NUMBER' && !/^\+\d{6,15}$/.test(btn.phoneNumber)) {
      fail(`${bat}.phoneNumber`, 'phoneNumber must be in international format, e.g. +14155552671');
    }
    if (btn.type === 'COPY_CODE' && category !== 'MARKETING') {
      fail(`${bat}.type`, 'COPY_CODE buttons are allowed in MARKETING templates only');
    }
  });
}

/** Substitutes {{n}} with the variables' values. */
export function render(text: string, variables: Record<string, string>): string {
  return text.replace(VARIABLE, (m, k: string) => variables[String(Number(k))] ?? m);
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
  if (!body.replace(VARIABLE, '').replace(/[\s\p{P}]/gu, '')) {
    return 'INVALID_FORMAT: the body cannot consist of variables only';
  }
  return null;
}
