/**
 * The template rules live once in shared/template-rules.ts: the core enforces them and the
 * editor checks them as the user types. These cases go through both and must agree.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/errors.ts';
import {
  BUTTON_PHONE_PATTERN,
  firstVariableGap,
  malformedVariable,
  nextVariableNumber,
  templateVariableNumbers,
  variablesIn,
} from '../../shared/template-rules.ts';
import type { TemplateComponent } from '../../shared/schemas/templates.ts';
import { checkTemplate } from '../../main/core/modules/templates/rules.ts';
import {
  buildComponents,
  emptyDraft,
  newButton,
  validateDraft,
  type ButtonType,
  type TemplateDraft,
} from '../../renderer/src/screens/templates/template-draft.ts';

const coreAccepts = (draft: TemplateDraft): boolean => {
  try {
    checkTemplate(draft.name, draft.category, buildComponents(draft).components);
    return true;
  } catch (e) {
    if (e instanceof ApiError) return false;
    throw e;
  }
};

const editorAccepts = (draft: TemplateDraft): boolean =>
  Object.keys(validateDraft(draft, { required: true })).length === 0;

const draft = (changes: Partial<TemplateDraft>): TemplateDraft => ({
  ...emptyDraft(),
  name: 'order_update',
  body: 'Hello {{1}}',
  ...changes,
});

const button = (type: ButtonType, fields: Partial<TemplateDraft['buttons'][number]> = {}) => ({
  ...newButton(type),
  text: 'Go',
  url: 'https://example.com',
  phoneNumber: '+14155552671',
  ...fields,
});

describe('shared template rules', () => {
  it('reads variables, malformed braces and gaps', () => {
    expect(variablesIn('Hi {{1}}, order {{ 2 }} and {{1}}')).toEqual([1, 2, 1]);
    expect(malformedVariable('Hello {{name}}')).toBe('{{name}}');
    expect(malformedVariable('Hello {{1}')).toBe('{{1}');
    expect(malformedVariable('Hello {{1}}')).toBeNull();
    expect(templateVariableNumbers('{{2}}', 'a {{1}} b {{2}}')).toEqual([1, 2]);
    expect(firstVariableGap([1, 2, 4])).toBe(3);
    expect(firstVariableGap([0])).toBe(1);
    expect(firstVariableGap([])).toBeNull();
    // "Add variable" fills the first gap, else follows the last.
    expect(nextVariableNumber([1, 3])).toBe(2);
    expect(nextVariableNumber([2])).toBe(1);
    expect(nextVariableNumber([1, 2, 3])).toBe(4);
    expect(nextVariableNumber([])).toBe(1);
    expect(BUTTON_PHONE_PATTERN.test('+14155552671')).toBe(true);
    expect(BUTTON_PHONE_PATTERN.test('+0123456')).toBe(false);
  });

  const cases: [string, TemplateDraft, boolean][] = [
    ['a plain template', draft({}), true],
    ['an uppercase name', draft({ name: 'Order' }), false],
    ['a 60-character header', draft({ header: 'h'.repeat(60) }), true],
    ['a 61-character header', draft({ header: 'h'.repeat(61) }), false],
    ['two header variables', draft({ header: '{{1}} {{2}}', body: 'x' }), false],
    ['a 1024-character body', draft({ body: 'b'.repeat(1024) }), true],
    ['a 1025-character body', draft({ body: 'b'.repeat(1025) }), false],
    ['a named placeholder', draft({ body: 'Hello {{name}}' }), false],
    ['a gap in the variables', draft({ body: '{{1}} and {{3}}' }), false],
    ['variable zero', draft({ body: 'Hello {{0}}' }), false],
    ['a footer variable', draft({ footer: 'Bye {{1}}' }), false],
    ['a 61-character footer', draft({ footer: 'f'.repeat(61) }), false],
    [
      'ten quick replies',
      draft({ buttons: Array.from({ length: 10 }, () => button('QUICK_REPLY')) }),
      true,
    ],
    [
      'eleven buttons',
      draft({ buttons: Array.from({ length: 11 }, () => button('QUICK_REPLY')) }),
      false,
    ],
    ['three URL buttons', draft({ buttons: [button('URL'), button('URL'), button('URL')] }), false],
    [
      'a 26-character button',
      draft({ buttons: [button('QUICK_REPLY', { text: 'x'.repeat(26) })] }),
      false,
    ],
    ['a relative URL', draft({ buttons: [button('URL', { url: '/track' })] }), false],
    [
      'a local phone number',
      draft({ buttons: [button('PHONE_NUMBER', { phoneNumber: '5552671' })] }),
      false,
    ],
    ['a copy code in UTILITY', draft({ buttons: [button('COPY_CODE')] }), false],
    [
      'a copy code in MARKETING',
      draft({ category: 'MARKETING', buttons: [button('COPY_CODE')] }),
      true,
    ],
  ];

  it.each(cases)('the editor and the core agree on %s', (_, d, ok) => {
    expect(editorAccepts(d)).toBe(ok);
    expect(coreAccepts(d)).toBe(ok);
  });

  it('keeps the components the editor builds as the core reads them', () => {
    const built: TemplateComponent[] = buildComponents(
      draft({ header: 'Order', footer: 'Thanks', buttons: [button('URL')] }),
    ).components;
    expect(built.map((c) => c.type)).toEqual(['HEADER', 'BODY', 'FOOTER', 'BUTTONS']);
  });
});
