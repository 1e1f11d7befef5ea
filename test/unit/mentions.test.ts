import { describe, expect, it } from 'vitest';
import { findMentions } from '../../shared/mentions.ts';

const members = [
  { id: 'ana_l', name: 'Ana López' },
  { id: 'ana_m', name: 'Ana María Ruiz' },
  { id: 'ana_mg', name: 'Ana María' },
  { id: 'ben', name: 'Ben  Ray' },
  { id: 'cy', name: 'Cy' },
];

describe('@name mentions', () => {
  it('match full names case-insensitively, the longest first', () => {
    expect(findMentions('@ANA LÓPEZ please', members)).toEqual(['ana_l']);
    expect(findMentions('cc @ana maría ruiz', members)).toEqual(['ana_m']);
    expect(findMentions('cc @Ana María, thanks', members)).toEqual(['ana_mg']);
    // Several, once each, in order of appearance.
    expect(findMentions('@Cy @ben ray and @cy again', members)).toEqual(['cy', 'ben']);
  });

  it('match a first name only one member has', () => {
    expect(findMentions('@ben can you?', members)).toEqual(['ben']);
    // Three Anas: "@Ana" names none of them.
    expect(findMentions('@Ana can you?', members)).toEqual([]);
  });

  it('need a word boundary on both sides: no email addresses, no longer words', () => {
    expect(findMentions('write to cy@example.com', members)).toEqual([]);
    expect(findMentions('@Cyril is not Cy', members)).toEqual([]);
    expect(findMentions('@@cy', members)).toEqual([]);
    expect(findMentions('(@cy)', members)).toEqual(['cy']);
    expect(findMentions('no mention here', members)).toEqual([]);
  });
});
