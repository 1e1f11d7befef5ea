import { describe, expect, it } from 'vitest';
import { renderEmail, renderEmailHtml, renderEmailText } from '../../shared/email-rules.ts';
import { firstNameOf, parsePlaceholders, renderPlaceholders } from '../../shared/placeholders.ts';
import { missingTally } from '../../shared/template-strings.ts';
import { conditionHolds, renderTemplateString, templateRefs } from '../../shared/workflow-rules.ts';

const ada = {
  name: 'Ada Lovelace',
  phone: '+14155552671',
  email: null,
  attributes: { plan: 'pro', seats: 3, vip: false, empty: '', 'First Name': 'Ada' },
};

describe('contact placeholders', () => {
  it('finds known placeholders with their places and lists unknown ones as written', () => {
    const { placeholders, unknown } = parsePlaceholders(
      'Hi {{ contact.name }}, {{contact.attributes.First Name}} {{contact.nmae}} {{2}}',
    );
    expect(placeholders.map((p) => [p.raw, p.source])).toEqual([
      ['{{ contact.name }}', { field: 'name' }],
      ['{{contact.attributes.First Name}}', { attribute: 'First Name' }],
    ]);
    expect(placeholders[0]).toMatchObject({ start: 3, end: 21 });
    expect(unknown).toEqual(['{{contact.nmae}}', '{{2}}']);
  });

  it('fills values and leaves a missing one as written, saying where it is', () => {
    const out = renderPlaceholders(
      '{{contact.name}} ({{contact.phone}}) on {{contact.attributes.plan}} x{{contact.attributes.seats}} vip={{contact.attributes.vip}}: mail {{contact.email}}, {{contact.attributes.empty}}{{contact.attributes.none}}',
      ada,
    );
    expect(out.text).toBe(
      'Ada Lovelace (+14155552671) on pro x3 vip=false: mail {{contact.email}}, {{contact.attributes.empty}}{{contact.attributes.none}}',
    );
    expect(out.missing.map((m) => out.text.slice(m.start, m.end))).toEqual([
      '{{contact.email}}',
      '{{contact.attributes.empty}}',
      '{{contact.attributes.none}}',
    ]);
  });

  it('leaves text without placeholders and unknown ones untouched', () => {
    expect(renderPlaceholders('Plain {x} {{1}}', ada)).toEqual({
      text: 'Plain {x} {{1}}',
      missing: [],
    });
  });
});

describe('template strings: own properties, fallbacks, one missing-value rule (README "Email", template strings)', () => {
  it('never reads the prototype chain: {{…constructor}} is missing, not a function’s source', () => {
    const out = renderPlaceholders(
      'a={{contact.attributes.constructor}} b={{contact.attributes.toString}} c={{contact.attributes.__proto__}} d={{contact.attributes.hasOwnProperty}}',
      ada,
    );
    expect(out.text).not.toContain('function');
    expect(out.text).not.toContain('[object');
    expect(out.missing.map((m) => m.path)).toEqual([
      'contact.attributes.constructor',
      'contact.attributes.toString',
      'contact.attributes.__proto__',
      'contact.attributes.hasOwnProperty',
    ]);
  });

  it('workflows read payload, reply and steps by own properties only, never functions', () => {
    const ctx = {
      payload: { cart: { total: 42, items: ['a'] }, code: '', fn: () => 'x' } as Record<
        string,
        unknown
      >,
      contact: {
        name: 'Ada',
        firstName: 'Ada',
        phone: '+14155552671',
        email: null,
        attributes: {},
      },
      reply: null,
      steps: {},
    };
    expect(renderTemplateString('{{payload.constructor}}', ctx)).toBe('');
    expect(renderTemplateString('{{payload.cart.constructor.name}}', ctx)).toBe('');
    expect(renderTemplateString('{{ payload.__proto__ }}|{{payload.toString}}', ctx)).toBe('|');
    expect(renderTemplateString('{{payload.fn}}', ctx)).toBe('');
    expect(renderTemplateString('{{steps.constructor}}{{contact.name.length}}', ctx)).toBe('');
    expect(renderTemplateString('{{payload.cart.total}} {{payload.cart}}', ctx)).toBe(
      '42 {"total":42,"items":["a"]}',
    );
    // "present" is the same rule: a branch's `exists` does not see the prototype.
    expect(
      conditionHolds(renderTemplateString('{{payload.constructor}}', ctx), 'exists', undefined),
    ).toBe(false);
    expect(
      renderTemplateString('{{payload.code | "none"}}, {{payload.missing|"x \\"y\\""}}', ctx),
    ).toBe('none, x "y"');
  });

  it('a fallback stands in for a missing value, and a value with a fallback is not missing', () => {
    const out = renderPlaceholders(
      'Code {{contact.attributes.code | "WELCOME"}}, plan {{ contact.attributes.plan | "free" }}, mail {{contact.email|"none"}}',
      ada,
    );
    expect(out).toEqual({ text: 'Code WELCOME, plan pro, mail none', missing: [] });
    const [p] = parsePlaceholders('{{contact.attributes.code | "WELCOME"}}').placeholders;
    expect(p).toMatchObject({ source: { attribute: 'code' }, fallback: 'WELCOME' });
    expect(parsePlaceholders('{{contact.name | WELCOME}}').unknown).toEqual([
      '{{contact.name | WELCOME}}',
    ]);
  });

  it('email renders a missing value empty (fallbacks escaped in html) and says which were missing', () => {
    expect(
      renderEmail('Your code is {{contact.attributes.code}}.', ada).missing.map((m) => m.path),
    ).toEqual(['contact.attributes.code']);
    expect(renderEmailText('Your code is {{contact.attributes.code}}.', ada)).toBe(
      'Your code is .',
    );
    expect(renderEmailHtml('<b>{{contact.attributes.code | "<A&B>"}}</b>', ada)).toBe(
      '<b>&lt;A&amp;B&gt;</b>',
    );
    expect(renderEmailText('{{contact.attributes.constructor}}', ada)).toBe('');
  });

  it('workflow references name the path without the fallback', () => {
    expect(
      templateRefs('{{payload.code | "none"}} {{ reply.text }} {{contact.name | bad}}'),
    ).toEqual(['payload.code', 'reply.text', 'contact.name | bad']);
  });

  it('tallies exactly the missing placeholders and for how many recipients', () => {
    const tally = missingTally();
    const text =
      'Hi {{contact.name}}, {{contact.attributes.code}} {{contact.attributes.code}} {{contact.email | "-"}}';
    tally.add(renderPlaceholders(text, { ...ada, attributes: {} }).missing);
    tally.add(renderPlaceholders(text, { ...ada, name: null, attributes: {} }).missing);
    tally.add(renderPlaceholders(text, ada).missing);
    expect(tally.list()).toEqual([
      { placeholder: '{{contact.attributes.code}}', recipients: 3 },
      { placeholder: '{{contact.name}}', recipients: 1 },
    ]);
  });
});

describe('{{contact.firstName}}', () => {
  it("is the first word of the contact's name, missing without a name", () => {
    expect(firstNameOf('  Ana María López ')).toBe('Ana');
    expect(firstNameOf('Cher')).toBe('Cher');
    expect(firstNameOf('   ')).toBeNull();
    expect(firstNameOf(null)).toBeNull();
    const contact = { name: 'Ana María López', phone: '+14155552671', email: null, attributes: {} };
    expect(renderPlaceholders('Hi {{contact.firstName}}!', contact).text).toBe('Hi Ana!');
    const nameless = { ...contact, name: null };
    expect(renderPlaceholders('Hi {{contact.firstName | "there"}}!', nameless).text).toBe(
      'Hi there!',
    );
    expect(renderPlaceholders('Hi {{contact.firstName}}!', nameless).missing).toHaveLength(1);
  });
});
