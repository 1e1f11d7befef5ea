/**
 * An email body written in Markdown (README "Email", Markdown bodies): rendered to HTML by
 * markdown-it, the same on both sides — the editor's preview shows what the core stores and
 * sends. Raw HTML in the Markdown is not passed through (it shows as text; write HTML in the
 * HTML editor instead), and markdown-it refuses `javascript:`, `vbscript:`, `file:` and
 * non-image `data:` links, so the output is markup Parley wrote. The renderer's preview still
 * hands it to the same sanitiser as a hand-written HTML body.
 *
 * Placeholders (`{{contact.firstName}}`, `{{contact.name | "there"}}`) are set aside before
 * rendering and put back as written, so Markdown never escapes or percent-encodes them (a link
 * `[shop](https://acme.example/?e={{contact.email}})` keeps its placeholder; values are escaped
 * when the email is filled, as for HTML bodies). No Node, no DOM: both sides import it.
 */
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });

/** Any `{{…}}`, as template-strings.ts reads them (unknown ones are kept as written too). */
const BRACES = /\{\{[^{}]*\}\}/g;

/** The largest Markdown source a campaign keeps (the rendered HTML has its own limit). */
export const MARKDOWN_MAX = 256 * 1024;

/** A body's Markdown as the email's HTML (a fragment: the core adds nothing but tracking). */
export function markdownToEmailHtml(markdown: string): string {
  const held: string[] = [];
  // A marker that does not occur in the text: letters and digits only, so Markdown leaves it be
  // in text, emphasis and link targets alike.
  let marker = 'mdph';
  while (markdown.includes(marker)) marker += 'q';
  const source = markdown.replace(BRACES, (p) => `${marker}${held.push(p) - 1}x`);
  const html = md.render(source);
  if (held.length === 0) return html;
  return html.replace(new RegExp(`${marker}(\\d+)x`, 'g'), (whole, i: string) => {
    const p = held[Number(i)];
    return p ?? whole;
  });
}

/** The two ways a body is written; what the editor's toggle switches. */
export const BODY_FORMATS = ['markdown', 'html'] as const;
export type BodyFormat = (typeof BODY_FORMATS)[number];
