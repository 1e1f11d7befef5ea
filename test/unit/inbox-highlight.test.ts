import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Highlighted, searchRanges } from '../../renderer/src/screens/inbox/highlight.tsx';

const html = (text: string, query: string, snippet = false): string =>
  renderToStaticMarkup(
    createElement('span', null, createElement(Highlighted, { text, query, snippet })),
  );

describe('the inbox list search marks', () => {
  it('finds every word of the query, case-insensitively, merging overlaps', () => {
    expect(searchRanges('Order ORD_2026 was ordered', 'order')).toEqual([
      [0, 5],
      [19, 24],
    ]);
    expect(searchRanges('the lid is cracked', 'cracked lid')).toEqual([
      [4, 7],
      [11, 18],
    ]);
    expect(searchRanges('abcdef', 'abc bcd')).toEqual([[0, 4]]);
    expect(searchRanges('anything', '   ')).toEqual([]);
  });

  it('renders the matches in <mark> and everything else as text, never as markup', () => {
    expect(html('About <b>my order</b>', 'order')).toBe(
      '<span>About &lt;b&gt;my <mark class="search-hit" data-testid="search-hit">order</mark>&lt;/b&gt;</span>',
    );
    expect(html('<img src=x onerror=alert(1)>', 'img')).not.toContain('<img');
    expect(html('No match here', 'parcel')).toBe('<span>No match here</span>');
  });

  it('starts a long preview shortly before a match one line would cut off', () => {
    expect(html('My invoice shows 2*3*4 = 24 items, I ordered 20.', 'ordered', true)).toBe(
      '<span>…items, I <mark class="search-hit" data-testid="search-hit">ordered</mark> 20.</span>',
    );
    // A match near the start keeps the whole text.
    expect(html('Hi! Order ORD_2026_A arrived', 'order', true)).toContain('Hi! <mark');
  });
});
