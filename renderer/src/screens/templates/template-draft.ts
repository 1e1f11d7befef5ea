/**
 * The template editor's model: the form's draft, the rules checked as the user types (stated
 * once in shared/template-rules.ts, which the core enforces and has the last word on), the
 * components sent to the API, and the mapping from the API's `error.param` back to a form field.
 */
import type {
  Template,
  TemplateButton,
  TemplateComponent,
} from '../../../../shared/schemas/index.ts';
import {
  BUTTON_LIMITS,
  BUTTON_PHONE_PATTERN,
  BUTTON_URL_PATTERN,
  buttonCounts as countButtons,
  COPY_CODE_CATEGORY,
  firstVariableGap,
  malformedVariable,
  TEMPLATE_CATEGORIES,
  TEMPLATE_LANGUAGE_PATTERN,
  TEMPLATE_LIMITS as LIMITS,
  TEMPLATE_NAME_PATTERN,
  templateVariableNumbers,
  variablesIn,
  type TemplateButtonType,
  type TemplateCategory,
} from '../../../../shared/template-rules.ts';

export { BUTTON_LIMITS, LIMITS };

export const CATEGORIES = TEMPLATE_CATEGORIES;
export type Category = TemplateCategory;

export type ButtonType = TemplateButtonType;

export const BUTTON_LABELS: Record<ButtonType, string> = {
  QUICK_REPLY: 'Quick reply',
  URL: 'Visit website',
  PHONE_NUMBER: 'Call phone number',
  COPY_CODE: 'Copy offer code',
};

export interface ButtonDraft {
  /** Stable React key; never sent. */
  key: string;
  type: ButtonType;
  text: string;
  url: string;
  phoneNumber: string;
  example: string;
}

export interface TemplateDraft {
  name: string;
  category: Category;
  language: string;
  header: string;
  body: string;
  footer: string;
  buttons: ButtonDraft[];
  /** Sample values for {{n}}, for the preview only. */
  samples: Record<string, string>;
}

/** Form fields an error can point at: name, body, buttons.1.text, … */
export type FieldKey = string;

/** The DOM id of a field's input, to focus the first one with an error. */
export const fieldId = (key: FieldKey): string => `tpl-${key.replace(/\./g, '-')}`;
export type FieldErrors = Record<FieldKey, string>;

let buttonSeq = 0;
export const newButton = (type: ButtonType): ButtonDraft => ({
  key: `b${++buttonSeq}`,
  type,
  text: '',
  url: '',
  phoneNumber: '',
  example: '',
});

export const emptyDraft = (): TemplateDraft => ({
  name: '',
  category: 'UTILITY',
  language: 'en',
  header: '',
  body: '',
  footer: '',
  buttons: [],
  samples: {},
});

export function draftFromTemplate(template: Template): TemplateDraft {
  const draft: TemplateDraft = {
    ...emptyDraft(),
    name: template.name,
    category: template.category,
    language: template.language,
  };
  for (const component of template.components) {
    if (component.type === 'HEADER') draft.header = component.text ?? '';
    else if (component.type === 'BODY') draft.body = component.text ?? '';
    else if (component.type === 'FOOTER') draft.footer = component.text ?? '';
    else if (component.type === 'BUTTONS') {
      draft.buttons = (component.buttons ?? []).map((b) => ({
        ...newButton(b.type),
        text: b.text,
        url: b.type === 'URL' ? b.url : '',
        phoneNumber: b.type === 'PHONE_NUMBER' ? b.phoneNumber : '',
        example: b.type === 'COPY_CODE' ? (b.example ?? '') : '',
      }));
    }
  }
  return draft;
}

/** The distinct variable numbers of header and body, ascending. */
export const variableNumbers = (draft: Pick<TemplateDraft, 'header' | 'body'>): number[] =>
  templateVariableNumbers(draft.header, draft.body);

/** "+1 (415) 555-2671" → "+14155552671": people type numbers with spaces; the API wants digits. */
const compactPhone = (phone: string): string => phone.replace(/[\s().-]/g, '');

const tooLong = (what: string, max: number, length: number): string =>
  `${what} is ${length} characters; the limit is ${max}.`;

export const buttonCounts = (buttons: ButtonDraft[]): Record<ButtonType, number> =>
  countButtons(buttons);

export interface ValidateOptions {
  /** Also report empty required fields (after a submit attempt, or once touched). */
  required: boolean;
}

/** The rules a user can fix while typing. Keys are form fields (see FieldKey). */
export function validateDraft(draft: TemplateDraft, options: ValidateOptions): FieldErrors {
  const errors: FieldErrors = {};
  const name = draft.name;
  if (!name) {
    if (options.required) errors.name = 'Give the template a name, e.g. order_shipped.';
  } else if (name.length > LIMITS.name) {
    errors.name = tooLong('The name', LIMITS.name, name.length);
  } else if (!TEMPLATE_NAME_PATTERN.test(name)) {
    errors.name = /[A-Z]/.test(name)
      ? `Names are lowercase: try “${name.toLowerCase().replace(/[^a-z0-9_]+/g, '_')}”.`
      : 'Use lowercase letters, digits and underscores only (e.g. order_shipped).';
  }

  if (!draft.language) {
    if (options.required) errors.language = 'Choose a language code such as en, es or pt_BR.';
  } else if (!TEMPLATE_LANGUAGE_PATTERN.test(draft.language)) {
    errors.language = 'Use a language code such as en, hi, es or pt_BR.';
  }

  const header = draft.header;
  const headerVars = variablesIn(header);
  if (header.length > LIMITS.header) {
    errors.header = tooLong('The header', LIMITS.header, header.length);
  } else if (headerVars.length > LIMITS.headerVariables) {
    errors.header = 'A header can hold at most one variable.';
  } else if (malformedVariable(header)) {
    errors.header = 'Write variables as {{1}}, {{2}}, … (numbers only).';
  }

  const body = draft.body;
  if (!body.trim()) {
    if (options.required) errors.body = 'The body is required: it is the message itself.';
  } else if (body.length > LIMITS.body) {
    errors.body = tooLong('The body', LIMITS.body, body.length);
  } else if (malformedVariable(body)) {
    errors.body = 'Write variables as {{1}}, {{2}}, … (numbers only).';
  }

  const footer = draft.footer;
  if (footer.length > LIMITS.footer) {
    errors.footer = tooLong('The footer', LIMITS.footer, footer.length);
  } else if (variablesIn(footer).length > 0 || malformedVariable(footer)) {
    errors.footer = 'The footer cannot contain variables.';
  }

  const numbers = variableNumbers(draft);
  const gap = firstVariableGap(numbers);
  if (gap !== null) {
    const field = variablesIn(body).some((n) => n > gap) ? 'body' : 'header';
    errors[field] ??= `Number variables {{1}}, {{2}}, … without gaps: {{${gap}}} is missing.`;
  }

  const counts = buttonCounts(draft.buttons);
  if (draft.buttons.length > LIMITS.buttons) {
    errors.buttons = `At most ${LIMITS.buttons} buttons in total.`;
  } else {
    for (const type of Object.keys(counts) as ButtonType[]) {
      if (counts[type] > BUTTON_LIMITS[type]) {
        errors.buttons = `At most ${BUTTON_LIMITS[type]} “${BUTTON_LABELS[type]}” button${BUTTON_LIMITS[type] === 1 ? '' : 's'}.`;
      }
    }
    if (counts.COPY_CODE > 0 && draft.category !== COPY_CODE_CATEGORY) {
      errors.buttons = `A “Copy offer code” button is only allowed in ${COPY_CODE_CATEGORY} templates.`;
    }
  }
  draft.buttons.forEach((button, i) => {
    const text = button.text;
    if (!text.trim()) {
      if (options.required) errors[`buttons.${i}.text`] = 'Give the button a label.';
    } else if (text.length > LIMITS.buttonText) {
      errors[`buttons.${i}.text`] = tooLong('The label', LIMITS.buttonText, text.length);
    }
    if (button.type === 'URL') {
      if (!button.url.trim()) {
        if (options.required) errors[`buttons.${i}.url`] = 'Enter the address the button opens.';
      } else if (!BUTTON_URL_PATTERN.test(button.url.trim())) {
        errors[`buttons.${i}.url`] = 'Use a full address starting with https://';
      }
    }
    if (button.type === 'PHONE_NUMBER') {
      if (!button.phoneNumber.trim()) {
        if (options.required) errors[`buttons.${i}.phoneNumber`] = 'Enter the number to call.';
      } else if (!BUTTON_PHONE_PATTERN.test(compactPhone(button.phoneNumber))) {
        errors[`buttons.${i}.phoneNumber`] =
          'Use international format with + and country code, e.g. +14155552671.';
      }
    }
  });
  return errors;
}

/** What each entry of the submitted `components` array came from, to read `components.N…`. */
export type ComponentSource = 'header' | 'body' | 'footer' | 'buttons';

export function buildComponents(draft: TemplateDraft): {
  components: TemplateComponent[];
  sources: ComponentSource[];
} {
  const components: TemplateComponent[] = [];
  const sources: ComponentSource[] = [];
  if (draft.header.trim()) {
    components.push({ type: 'HEADER', format: 'TEXT', text: draft.header });
    sources.push('header');
  }
  components.push({ type: 'BODY', text: draft.body });
  sources.push('body');
  if (draft.footer.trim()) {
    components.push({ type: 'FOOTER', text: draft.footer });
    sources.push('footer');
  }
  if (draft.buttons.length > 0) {
    components.push({
      type: 'BUTTONS',
      buttons: draft.buttons.map((b): TemplateButton => {
        switch (b.type) {
          case 'QUICK_REPLY':
            return { type: 'QUICK_REPLY', text: b.text };
          case 'URL':
            return { type: 'URL', text: b.text, url: b.url.trim() };
          case 'PHONE_NUMBER':
            return { type: 'PHONE_NUMBER', text: b.text, phoneNumber: compactPhone(b.phoneNumber) };
          case 'COPY_CODE':
            return {
              type: 'COPY_CODE',
              text: b.text,
              ...(b.example.trim() ? { example: b.example.trim() } : {}),
            };
        }
      }),
    });
    sources.push('buttons');
  }
  return { components, sources };
}

const BUTTON_FIELDS = new Set(['text', 'url', 'phoneNumber', 'example']);

/**
 * Maps the API's `error.param` (a dot path into the request body) to the form field that shows
 * it, e.g. `components.2.buttons.1.text` → `buttons.1.text`. Null: show it above the form.
 */
export function fieldForParam(
  param: string | undefined,
  sources: ComponentSource[],
): FieldKey | null {
  if (!param) return null;
  const parts = param.split('.');
  const [head] = parts;
  if (head === 'name' || head === 'category' || head === 'language') return head;
  if (head !== 'components') return null;
  if (parts.length === 1) return null;
  const source = sources[Number(parts[1])];
  if (!source) return null;
  if (source !== 'buttons') return source;
  if (parts[2] !== 'buttons' || parts[3] === undefined) return 'buttons';
  const index = Number(parts[3]);
  if (!Number.isInteger(index)) return 'buttons';
  const leaf = parts[4];
  // A button's type breaks a count or category rule: that is the buttons block's error.
  if (leaf === 'type') return 'buttons';
  return `buttons.${index}.${leaf && BUTTON_FIELDS.has(leaf) ? leaf : 'text'}`;
}
