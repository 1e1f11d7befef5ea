/**
 * Turns an email's HTML into what the preview frame shows. The email is untrusted markup (pasted
 * from anywhere), so DOMPurify cleans it first, and the frame is sandboxed without scripts. The
 * page's Content-Security-Policy, which a `srcdoc` frame inherits, allows no inline styles and no
 * images from elsewhere: the document handed to the frame therefore carries neither. Its styles
 * are kept apart and applied through the CSSOM once it has loaded (`applyPreviewStyles`), which
 * the policy does not govern; images from elsewhere and links are shown but never fetched or
 * followed. Chromium reports a `style` attribute or element as a policy violation even while
 * parsing into an inert document, so they are taken out of the text before anything parses it.
 */
import DOMPurify from 'dompurify';

export interface PreparedEmail {
  /** The document the frame shows: no script, no style, nothing fetched from elsewhere. */
  srcdoc: string;
  /** The email's `<style>` blocks and a few base rules, without `url()`s or `@import`s. */
  css: string;
  /** Each element's inline style, by its `data-pv-css` index. */
  inline: string[];
  /** Images that would be fetched from another site: not loaded in the preview. */
  remoteImages: number;
}

/** Close to what most mail apps start from, and how a placeholder for a remote image looks. */
const BASE_CSS = `
body { margin: 16px; font-family: Arial, Helvetica, sans-serif; font-size: 14px; line-height: 1.5; color: #1d2433; overflow-wrap: anywhere; }
img { max-width: 100%; }
img[data-pv-remote] { min-width: 24px; min-height: 24px; outline: 1px dashed #98a2b3; outline-offset: -1px; background: #f2f4f7; }
a[data-pv-href] { color: #2f5bea; text-decoration: underline; cursor: default; }
`;

/** Markup that would fetch, submit or navigate: not part of a preview. */
const FORBID_TAGS = [
  'form',
  'input',
  'button',
  'select',
  'textarea',
  'base',
  'link',
  'meta',
  'audio',
  'video',
  'source',
  'track',
  'picture',
];
const FORBID_ATTR = ['srcset', 'background', 'poster', 'action', 'formaction', 'ping', 'target'];

/** `url(…)` other than `data:` would be fetched; `@import` too. */
const REMOTE_URL = /url\(\s*(?!['"]?\s*data:)[^)]*\)/gi;
const IMPORT = /@import[^;]*;?/gi;

export const neutraliseCss = (css: string): string =>
  css.replace(IMPORT, '').replace(REMOTE_URL, 'none');

const isDataUrl = (src: string): boolean => /^\s*data:image\//i.test(src);

/** Where an element's inline style waits, unparsed, until the frame has loaded. */
const STYLE_ATTR = 'data-pv-css';

const STYLE_BLOCK = /<style\b[^>]*>([\s\S]*?)(?:<\/style\s*>|$)/gi;
const START_TAG =
  /<[a-zA-Z][^\s/>]*(?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*\s*\/?>/g;
/** One attribute of a start tag, its name captured. */
const ATTRIBUTE = /(\s+)([^\s"'>/=]+)((?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)/g;

/**
 * The email's text with its `<style>` blocks taken out (their CSS returned apart), its `style`
 * attributes renamed and its event-handler attributes dropped, so that parsing it touches no
 * inline style or script. Markup this misses is still sanitised; it only shows up as a report in
 * the console.
 */
export function setStylesAside(html: string): { html: string; css: string[] } {
  const css: string[] = [];
  const withoutBlocks = html.replace(STYLE_BLOCK, (_block, rules: string) => {
    css.push(rules);
    return '';
  });
  const renamed = withoutBlocks.replace(START_TAG, (tag) =>
    tag.replace(ATTRIBUTE, (attribute, space: string, name: string, value: string) => {
      const lower = name.toLowerCase();
      if (lower === 'style') return `${space}${STYLE_ATTR}${value}`;
      return lower.startsWith('on') ? '' : attribute;
    }),
  );
  return { html: renamed, css };
}

/** Cleans an email's (filled-in) HTML and takes out what the frame may not load itself. */
export function prepareEmailPreview(html: string): PreparedEmail {
  const aside = setStylesAside(html);
  const root = DOMPurify.sanitize(aside.html, {
    WHOLE_DOCUMENT: true,
    USE_PROFILES: { html: true },
    FORBID_TAGS,
    FORBID_ATTR,
    ADD_ATTR: [STYLE_ATTR],
    RETURN_DOM: true,
  }) as HTMLElement;

  const css = [BASE_CSS, ...aside.css.map(neutraliseCss)].join('\n');
  const inline: string[] = [];
  for (const element of [...root.querySelectorAll(`[${STYLE_ATTR}]`)]) {
    inline.push(neutraliseCss(element.getAttribute(STYLE_ATTR) ?? ''));
    element.setAttribute(STYLE_ATTR, String(inline.length - 1));
  }

  let remoteImages = 0;
  for (const image of [...root.querySelectorAll('img')]) {
    const src = image.getAttribute('src') ?? '';
    if (src && isDataUrl(src)) continue;
    image.removeAttribute('src');
    image.setAttribute('data-pv-remote', '');
    if (src) {
      remoteImages += 1;
      image.setAttribute('title', `Image from ${src} (not loaded in the preview)`);
    }
  }

  // A link in the preview shows where it leads but goes nowhere.
  for (const link of [...root.querySelectorAll('a[href]')]) {
    const href = link.getAttribute('href') ?? '';
    link.removeAttribute('href');
    link.setAttribute('data-pv-href', href);
    link.setAttribute('title', href);
  }

  return { srcdoc: `<!doctype html>${root.outerHTML}`, css, inline, remoteImages };
}

/**
 * Applies a prepared email's styles to the loaded frame through the CSSOM: the rules as a
 * constructed stylesheet of the frame's own document, the inline styles on their elements.
 */
export function applyPreviewStyles(frame: HTMLIFrameElement, prepared: PreparedEmail): void {
  const doc = frame.contentDocument;
  if (!doc) return;
  for (const element of doc.querySelectorAll<HTMLElement>(`[${STYLE_ATTR}]`)) {
    const css = prepared.inline[Number(element.getAttribute(STYLE_ATTR))];
    if (css) element.style.cssText = css;
  }
  try {
    const FrameSheet = (doc.defaultView as (Window & typeof globalThis) | null)?.CSSStyleSheet;
    if (!FrameSheet) return;
    const sheet = new FrameSheet();
    sheet.replaceSync(prepared.css);
    doc.adoptedStyleSheets = [sheet];
  } catch {
    // A browser without constructed stylesheets shows the email with its inline styles only.
  }
}

const BLOCKS = new Set([
  'ADDRESS',
  'BLOCKQUOTE',
  'DIV',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HR',
  'LI',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'TABLE',
  'TR',
  'UL',
]);

/**
 * Roughly the plain text a mail app would show for this HTML: its words, paragraphs as blank
 * lines, list items with a bullet, links with their address. The core makes the real one.
 */
export function approximateText(html: string): string {
  const body = DOMPurify.sanitize(setStylesAside(html).html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS,
    RETURN_DOM: true,
  }) as HTMLElement;
  let out = '';
  const walk = (node: Node): void => {
    if (node.nodeType === Node.TEXT_NODE) {
      out += (node.textContent ?? '').replace(/\s+/g, ' ');
      return;
    }
    if (!(node instanceof Element)) return;
    const tag = node.tagName;
    if (tag === 'BR') {
      out += '\n';
      return;
    }
    const block = BLOCKS.has(tag);
    if (block) out += '\n\n';
    if (tag === 'LI') out += '• ';
    if (tag === 'TD' || tag === 'TH') out += ' ';
    for (const child of node.childNodes) walk(child);
    if (tag === 'A') {
      const href = node.getAttribute('href');
      if (href && href !== node.textContent?.trim() && !href.startsWith('#')) out += ` (${href})`;
    }
    if (block) out += '\n\n';
  };
  walk(body);
  return out
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
