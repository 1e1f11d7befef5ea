import { describe, expect, it } from 'vitest';
import { parsePlaceholders, renderPlaceholders } from '../../shared/placeholders.ts';

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
