/**
 * An email body written in Markdown (README "Email", Markdown bodies): rendered to HTML by
 * markdown-it, the same on both sides — the editor's preview shows what the core stores and
 * sends. Raw HTML in the Markdown is not passed through (it shows as text; write HTML in the
 * HTML editor instead), and markdown-it refuses `javascript:`, `vbscript:`, `file:` and
 * non-image `data:` links, so the output is markup Parley wrote. The renderer's preview still
 * hands it to the same sanitiser as a hand-written HTML body.
 *
 * Placeholders (`{{contact.firstName}}`, `{{contact.name | "there"}}`: only what
 * shared/placeholders.ts recognises) are set aside before rendering and put back, so Markdown
 * never escapes or percent-encodes them (a link `[shop](https://acme.example/?e={{contact.email}})`
 * keeps its placeholder; values are escaped when the email is filled, as for HTML bodies). Put
 * back, a placeholder's `<` and `>` are escaped, and inside a tag (a link target, an image's alt)
 * so is `"`: a placeholder can never open a tag or close an attribute (a fallback in a link
 * target is therefore not filled; write that link in the HTML editor). Any other `{{…}}` is
 * plain Markdown text. No Node, no DOM: both sides import it.
 */
import MarkdownIt from 'markdown-it';
import { parsePlaceholders } from './placeholders.ts';

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });

/**
 * The largest Markdown source a campaign keeps (the rendered HTML has its own limit). Rendering
 * runs on the core's request path: at 64 K characters even a pathological body (`![a` repeated)
 * renders in about a quarter of a second, where 256 K took about one.
 */
export const MARKDOWN_MAX = 64 * 1024;

/** A body's Markdown as the email's HTML (a fragment: the core adds nothing but tracking). */
export function markdownToEmailHtml(markdown: string): string {
  const held: string[] = [];
  // A marker that does not occur in the text: letters and digits only, so Markdown leaves it be
  // in text, emphasis and link targets alike.
  let marker = 'mdph';
  while (markdown.includes(marker)) marker += 'q';
  let source = '';
  let from = 0;
  for (const p of parsePlaceholders(markdown).placeholders) {
    source += `${markdown.slice(from, p.start)}${marker}${held.push(p.raw) - 1}x`;
    from = p.end;
  }
  source += markdown.slice(from);
  const html = md.render(source);
  if (held.length === 0) return html;
  return html.replace(new RegExp(`${marker}(\\d+)x`, 'g'), (whole, i: string, at: number) => {
    const p = held[Number(i)];
    if (p === undefined) return whole;
    // markdown-it escapes every other < and >, so the last one before here tells tag from text.
    const inTag = html.lastIndexOf('<', at) > html.lastIndexOf('>', at);
    return p.replace(inTag ? /[<>"]/g : /[<>]/g, (c) => ESCAPES[c]!);
  });
}

const ESCAPES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** The two ways a body is written; what the editor's toggle switches. */
export const BODY_FORMATS = ['markdown', 'html'] as const;
export type BodyFormat = (typeof BODY_FORMATS)[number];
