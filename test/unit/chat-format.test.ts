import { describe, expect, it } from 'vitest';
import type { ChatSegment } from '../../shared/chat-format.ts';
import { findMatches, parseChat, visibleText } from '../../shared/chat-format.ts';

const text = (t: string): ChatSegment => ({ kind: 'text', text: t });
const bold = (...children: ChatSegment[]): ChatSegment => ({ kind: 'bold', children });
const italic = (...children: ChatSegment[]): ChatSegment => ({ kind: 'italic', children });
const strike = (...children: ChatSegment[]): ChatSegment => ({ kind: 'strike', children });

/** Text that must come out exactly as written, with no formatting at all. */
const verbatim = (t: string) => expect(parseChat(t)).toEqual([text(t)]);

describe('chat formatting (WhatsApp rules)', () => {
  it('leaves the issue’s order id, address and arithmetic exactly as written', () => {
    verbatim('ORD_2026_A');
    verbatim('Your order ORD_2026_A_B ships today');
    verbatim('2*3*4 = 24');
    verbatim('1_000_000 and 3~4~5');
    expect(parseChat('john_doe_99@example.com')).toEqual([
      { kind: 'link', text: 'john_doe_99@example.com', href: 'mailto:john_doe_99@example.com' },
    ]);
    expect(parseChat('mail _john_doe_99@example.com_ now')).toEqual([
      text('mail '),
      italic({
        kind: 'link',
        text: 'john_doe_99@example.com',
        href: 'mailto:john_doe_99@example.com',
      }),
      text(' now'),
    ]);
  });

  it('formats markers at word boundaries', () => {
    expect(parseChat('*bold* _italic_ ~gone~')).toEqual([
      bold(text('bold')),
      text(' '),
      italic(text('italic')),
      text(' '),
      strike(text('gone')),
    ]);
    // Punctuation around the markers is a boundary too.
    expect(parseChat('(*yes*), "_maybe_".')).toEqual([
      text('('),
      bold(text('yes')),
      text('), "'),
      italic(text('maybe')),
      text('".'),
    ]);
    // Markers inside a run still format when the run is bounded: snake_case inside italics.
    expect(parseChat('_foo_bar_ x')).toEqual([italic(text('foo_bar')), text(' x')]);
  });

  it('never opens or closes inside a word, and needs a non-space inside', () => {
    verbatim('a*b* c');
    verbatim('*b*c');
    verbatim('* not bold*');
    verbatim('*not bold *');
    verbatim('10 * 3 * 2');
    verbatim('**');
    verbatim('~ ~');
    verbatim('snake_case_name');
  });

  it('does not cross lines, except monospace', () => {
    verbatim('*one\ntwo*');
    expect(parseChat('```line 1\nline 2```')).toEqual([
      { kind: 'monospace', text: 'line 1\nline 2' },
    ]);
    verbatim('`one\ntwo`');
  });

  it('nests different markers but never the same one', () => {
    expect(parseChat('*_both_*')).toEqual([bold(italic(text('both')))]);
    expect(parseChat('*a *b* c*')).toEqual([bold(text('a *b')), text(' c*')]);
    expect(parseChat('~*sale* 20%~')).toEqual([strike(bold(text('sale')), text(' 20%'))]);
  });

  it('shows code and monospace verbatim', () => {
    expect(parseChat('run `npm_install *now*` please')).toEqual([
      text('run '),
      { kind: 'code', text: 'npm_install *now*' },
      text(' please'),
    ]);
    expect(parseChat('```a_b_c https://x.test```')).toEqual([
      { kind: 'monospace', text: 'a_b_c https://x.test' },
    ]);
    verbatim('``double``');
    verbatim('a`b` c');
  });

  it('never formats inside a URL, and leaves trailing punctuation out of it', () => {
    expect(parseChat('see https://shop.test/o/ORD_2026_A?x=*y*.')).toEqual([
      text('see '),
      {
        kind: 'link',
        text: 'https://shop.test/o/ORD_2026_A?x=*y',
        href: 'https://shop.test/o/ORD_2026_A?x=*y',
      },
      text('*.'),
    ]);
    expect(parseChat('*www.shop.test/a_b_c*')).toEqual([
      bold({ kind: 'link', text: 'www.shop.test/a_b_c', href: 'https://www.shop.test/a_b_c' }),
    ]);
    expect(parseChat('(https://en.wikipedia.org/wiki/Foo_(bar))')).toEqual([
      text('('),
      {
        kind: 'link',
        text: 'https://en.wikipedia.org/wiki/Foo_(bar)',
        href: 'https://en.wikipedia.org/wiki/Foo_(bar)',
      },
      text(')'),
    ]);
    // Only http(s) and mail links are ever made: nothing else becomes an href.
    verbatim('javascript:alert(1)');
  });

  it('treats letters of any script as word characters', () => {
    verbatim('naïve_café_x');
    expect(parseChat('*größe*')).toEqual([bold(text('größe'))]);
  });

  it('gives the visible text without markers', () => {
    expect(visibleText(parseChat('*Hi* _Ann_, order ORD_1 `x_y`'))).toBe('Hi Ann, order ORD_1 x_y');
  });
});

describe('search matches', () => {
  it('finds every case-insensitive occurrence, left to right', () => {
    expect(findMatches('Order ORD_1, order ord_2', 'ord')).toEqual([
      [0, 3],
      [6, 9],
      [13, 16],
      [19, 22],
    ]);
    expect(findMatches('aaaa', 'aa')).toEqual([
      [0, 2],
      [2, 4],
    ]);
    expect(findMatches('anything', '  ')).toEqual([]);
    // Offsets stay those of the original text even where lower-casing changes length.
    expect(findMatches('İstanbul shop', 'shop')).toEqual([[9, 13]]);
  });
});
