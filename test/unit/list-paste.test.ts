import { describe, expect, it } from 'vitest';
import { CLOUD_API_LIST_ROWS, cloudApiListProblem, listProblems } from '../../shared/list-rules.ts';
import {
  contentOf,
  duplicateSection,
  emptyDraft,
  idsKept,
  planPaste,
  withPastedRows,
  type ListDraft,
} from '../../renderer/src/screens/interactive-lists/list-draft.ts';
import {
  parsePastedRows,
  slugOf,
  uniqueId,
} from '../../renderer/src/screens/interactive-lists/paste-rows.ts';

const lines = (n: number, sep = '\t') =>
  Array.from({ length: n }, (_, i) => `Topic ${i + 1}${sep}About ${i + 1}`).join('\n');

function filledDraft(): ListDraft {
  const draft = emptyDraft();
  draft.name = 'Support';
  draft.body = 'Pick one';
  draft.buttonText = 'Choose';
  draft.sections[0]!.title = 'Orders';
  return draft;
}

describe('parsePastedRows', () => {
  it('reads tab-separated lines from a spreadsheet: title, description, id', () => {
    const r = parsePastedRows('Track order\tWhere is it?\ttrack\nReturns\t\t\nTalk to us');
    expect(r.delimiter).toBe('tab');
    expect(r.errors).toEqual([]);
    expect(r.rows).toEqual([
      { line: 1, title: 'Track order', description: 'Where is it?', id: 'track' },
      { line: 2, title: 'Returns', description: '', id: 'returns' },
      { line: 3, title: 'Talk to us', description: '', id: 'talk-to-us' },
    ]);
  });

  it('reads CSV with quotes, commas and line breaks inside cells', () => {
    const r = parsePastedRows('"Sizes, colours","Which one ""fits""?",sizes\n"Two\nlines",x');
    expect(r.delimiter).toBe('comma');
    expect(r.errors).toEqual([]);
    expect(r.rows[0]).toMatchObject({ title: 'Sizes, colours', description: 'Which one "fits"?' });
    expect(r.rows[1]).toMatchObject({ line: 3, title: 'Two\nlines', id: 'two-lines' });
  });

  it('skips a header line naming the columns, in any order', () => {
    const r = parsePastedRows('ID\tTitle\tDescription\nfaq\tFAQ\tQuestions');
    expect(r.header).toBe(true);
    expect(r.rows).toEqual([{ line: 2, id: 'faq', title: 'FAQ', description: 'Questions' }]);
  });

  it('skips blank lines and keeps line numbers of the pasted text', () => {
    const r = parsePastedRows('\nA\n\n\nB\n');
    expect(r.rows.map((row) => [row.line, row.title])).toEqual([
      [2, 'A'],
      [5, 'B'],
    ]);
  });

  it('says what is wrong with each line, by the shared limits, and keeps the others', () => {
    const r = parsePastedRows(
      [
        'A title that is far too long for a row',
        `Fine\t${'d'.repeat(73)}`,
        '\tNo title',
        'One\tx\tdup',
        'Two\ty\tdup',
        'Three\tz\tkept',
        'Four\ta\tb\textra',
        'Five',
      ].join('\n'),
      ['kept'],
    );
    expect(r.rows.map((row) => row.title)).toEqual(['One', 'Five']);
    expect(r.errors).toEqual([
      { line: 1, message: 'Line 1: Row title is at most 24 characters (it has 38)' },
      { line: 2, message: 'Line 2: Description is at most 72 characters (it has 73)' },
      { line: 3, message: 'Line 3: Row title is empty' },
      { line: 5, message: 'Line 5: Row ID "dup" is used twice (also on line 4)' },
      { line: 6, message: 'Line 6: Row ID "kept" is already used in the list' },
      {
        line: 7,
        message: 'Line 7 has 4 cells; a row has 3 (title, description, id)',
      },
    ]);
  });

  it('makes ids that collide with none in the list or the paste', () => {
    const r = parsePastedRows('Help\nHelp\nhelp-2\tgiven\thelp-3', ['help']);
    expect(r.rows.map((row) => row.id)).toEqual(['help-2', 'help-4', 'help-3']);
    expect(slugOf('Crème brûlée — 2 scoops!')).toBe('creme-brulee-2-scoops');
    expect(uniqueId('', new Set(['row-1']))).toBe('row-2');
  });

  it('reports text it cannot read with its line', () => {
    const r = parsePastedRows('Fine,x\n"Unclosed,quote');
    expect(r.rows).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.message).toMatch(/^Can't read the text/);
  });
});

describe('placing pasted rows', () => {
  it('fills the section (in place of its blank row), then new sections after it', () => {
    const draft = filledDraft();
    const pasted = parsePastedRows(lines(12), idsKept(draft, 0)).rows;
    expect(planPaste(draft, 0, pasted.length)).toEqual({
      intoSection: 10,
      newSections: [2],
      left: 0,
    });
    const sections = withPastedRows(draft, 0, pasted);
    expect(sections.map((s) => [s.title, s.rows.length])).toEqual([
      ['Orders', 10],
      ['Orders (2)', 2],
    ]);
    const content = { ...contentOf(draft), sections: contentOf({ ...draft, sections }).sections };
    expect(listProblems(content)).toEqual([]);
    // 12 rows: the spec takes it, the Cloud API does not.
    expect(cloudApiListProblem(content)?.message).toBe(
      `the WhatsApp Cloud API takes at most ${CLOUD_API_LIST_ROWS} rows in a list in all, sections included (this list has 12)`,
    );
  });

  it('says how many rows fit nowhere once the list has its most sections', () => {
    const draft = filledDraft();
    for (let i = 0; i < 9; i++) draft.sections = duplicateSection(draft, 0);
    expect(draft.sections).toHaveLength(10);
    // The first section's blank row makes room for 10; no section is left for the rest.
    expect(planPaste(draft, 0, 12)).toEqual({ intoSection: 10, newSections: [], left: 2 });
    expect(withPastedRows(draft, 0, parsePastedRows(lines(12)).rows)).toHaveLength(10);
  });
});

describe('duplicateSection', () => {
  it('copies a section after it with new unique row ids', () => {
    const draft = filledDraft();
    draft.sections[0]!.rows[0]!.title = 'Track';
    draft.sections = withPastedRows(draft, 0, parsePastedRows('A\tx\ta-1\nB').rows);
    const sections = duplicateSection(draft, 0);
    expect(sections.map((s) => s.title)).toEqual(['Orders', 'Orders (copy)']);
    const ids = sections.flatMap((s) => s.rows.map((r) => r.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(sections[1]!.rows.map((r) => [r.title, r.id])).toEqual([
      ['Track', 'row-2'],
      ['A', 'a-2'],
      ['B', 'b-2'],
    ]);
    expect(listProblems(contentOf({ ...draft, sections }))).toEqual([]);
  });

  it('keeps a long title within the section title limit', () => {
    const draft = filledDraft();
    draft.sections[0]!.title = 'x'.repeat(24);
    expect(duplicateSection(draft, 0)[1]!.title).toBe(`${'x'.repeat(17)} (copy)`);
  });
});
