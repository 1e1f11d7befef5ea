import { createHmac, timingSafeEqual } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { compile } from 'html-to-text';
import type Mail from 'nodemailer/lib/mailer';
import { headerSafe } from '../../../shared/header-text.ts';
import { emailDomain, escapeHtml } from '../../../shared/email-rules.ts';

/**
 * Turns one rendered email into nodemailer's message options. Campaign emails get open and click
 * tracking and an unsubscribe link and headers (README "Email"); transactional
 * ones go out as written.
 */

export interface ComposeInput {
  /** Our id for the email (e.g. "em_01J…"); becomes the Message-ID's local part. */
  id: string;
  fromName: string | null;
  fromEmail: string;
  replyTo: string | null;
  to: string;
  /** Already rendered. */
  subject: string;
  /** Already rendered (values escaped); null for a text-only email. */
  html: string | null;
  /** Already rendered; when null and html is given, generated from the html. */
  text: string | null;
  /** Campaign emails: tracking + unsubscribe. Transactional sends pass null. */
  tracking: null | {
    /** Base URL the recipient's client can reach, e.g. "https://mail.example.com". */
    publicUrl: string;
    /** Unguessable per-recipient token (base62, ≥ 22 chars). */
    token: string;
    /** HMAC key used to sign click-redirect targets. */
    linkKey: Buffer;
  };
}

export interface ComposedEmail {
  /** nodemailer's Mail.Options, ready for sendMail. */
  message: Mail.Options;
  /** "<id@domain>", to match bounces and replies back to the email. */
  messageId: string;
}

/** The public tracking routes, relative to publicUrl. Tokens are base62, so they need no escaping. */
export const TRACKING_PATHS = {
  open: (token: string) => `/e/o/${token}.gif`,
  click: (token: string) => `/e/c/${token}`,
  unsubscribe: (token: string) => `/e/u/${token}`,
};

const TOKEN = /^[A-Za-z0-9]{22,}$/;
/** 22 base64url characters: 132 bits of the HMAC, more than enough against forged redirects. */
const SIG_LENGTH = 22;

function signClick(token: string, target: string, key: Buffer): string {
  return createHmac('sha256', key)
    .update(token + '\n' + target)
    .digest('base64url')
    .slice(0, SIG_LENGTH);
}

/** A signed redirect: the click route only sends people on to targets we put in an email. */
export function clickUrl(publicUrl: string, token: string, target: string, key: Buffer): string {
  const sig = signClick(token, target, key);
  return `${publicUrl}${TRACKING_PATHS.click(token)}?u=${encodeURIComponent(target)}&s=${sig}`;
}

/** Constant-time, so the signature cannot be guessed byte by byte from response times. */
export function verifyClick(token: string, target: string, sig: string, key: Buffer): boolean {
  const expected = Buffer.from(signClick(token, target, key));
  const given = Buffer.from(sig);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Links keep their text and show the URL after it; images say nothing in plain text. */
const htmlToText = compile({
  wordwrap: 78,
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
  ],
});

// --- HTML, edited in place ---
//
// The rewrite does not parse and re-serialize the document: a small tokenizer following the HTML
// spec's tokenizer states finds the `<a href>` values and the closing `</body>`, and only those
// bytes change. Everything else (conditional comments for Outlook, odd markup) stays exactly as
// the author wrote it.

/** Their content is text up to the matching end tag, so a `<a` inside is not a link. */
const RAW_TEXT = new Set([
  'script',
  'style',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'textarea',
  'title',
]);

interface Attribute {
  name: string;
  /** The raw value, entities not yet decoded; '' for an attribute without one. */
  value: string;
  /** Where the value starts and ends in the document, quotes included; -1 without a value. */
  start: number;
  end: number;
}

interface Tag {
  name: string;
  attributes: Attribute[];
  /** Just past the closing '>' (or the end of the document). */
  end: number;
}

const isSpace = (c: string | undefined) =>
  c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
const isLetter = (c: string | undefined) => c !== undefined && /[A-Za-z]/.test(c);

/** Reads a tag from just after `<` or `</`: name, then attributes as the spec's states do. */
function readTag(html: string, from: number): Tag {
  let i = from;
  while (i < html.length && !isSpace(html[i]) && html[i] !== '/' && html[i] !== '>') i++;
  const tag: Tag = { name: html.slice(from, i).toLowerCase(), attributes: [], end: html.length };
  for (;;) {
    while (i < html.length && (isSpace(html[i]) || html[i] === '/')) i++;
    if (i >= html.length) return tag;
    if (html[i] === '>') {
      tag.end = i + 1;
      return tag;
    }
    // An attribute name may start with '=' (a parse error the spec tolerates).
    const nameStart = i;
    i++;
    while (i < html.length && !isSpace(html[i]) && !'/>='.includes(html[i]!)) i++;
    const name = html.slice(nameStart, i).toLowerCase();
    while (isSpace(html[i])) i++;
    if (html[i] !== '=') {
      tag.attributes.push({ name, value: '', start: -1, end: -1 });
      continue;
    }
    i++;
    while (isSpace(html[i])) i++;
    const quote = html[i];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, i + 1);
      const end = close === -1 ? html.length : close + 1;
      tag.attributes.push({
        name,
        value: html.slice(i + 1, close === -1 ? end : close),
        start: i,
        end,
      });
      i = end;
    } else if (quote === '>' || i >= html.length) {
      tag.attributes.push({ name, value: '', start: -1, end: -1 });
    } else {
      const start = i;
      while (i < html.length && !isSpace(html[i]) && html[i] !== '>') i++;
      tag.attributes.push({ name, value: html.slice(start, i), start, end: i });
    }
  }
}

/** Where a comment that opens at `from` (`<!--`) ends, including its abrupt spec forms. */
function commentEnd(html: string, from: number): number {
  if (html.startsWith('<!-->', from)) return from + 5;
  if (html.startsWith('<!--->', from)) return from + 6;
  let i = from + 4;
  for (;;) {
    const dash = html.indexOf('--', i);
    if (dash === -1) return html.length;
    if (html[dash + 2] === '>') return dash + 3;
    if (html.startsWith('!>', dash + 2)) return dash + 4;
    i = dash + 1;
  }
}

/** The href of every `<a>` (the first one, as a browser reads it) and where the last `</body>` is. */
function scanHtml(html: string): { anchors: Attribute[]; bodyClose: number } {
  const anchors: Attribute[] = [];
  let bodyClose = -1;
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    const next = html[lt + 1];
    if (html.startsWith('<!--', lt)) {
      i = commentEnd(html, lt);
    } else if (next === '!' || next === '?') {
      // Doctype, CDATA in HTML content, processing instructions: up to the next '>'.
      const gt = html.indexOf('>', lt);
      i = gt === -1 ? html.length : gt + 1;
    } else if (next === '/' && isLetter(html[lt + 2])) {
      const tag = readTag(html, lt + 2);
      if (tag.name === 'body') bodyClose = lt;
      i = tag.end;
    } else if (next === '/') {
      const gt = html.indexOf('>', lt);
      i = gt === -1 ? html.length : gt + 1;
    } else if (isLetter(next)) {
      const tag = readTag(html, lt + 1);
      i = tag.end;
      const href = tag.name === 'a' ? tag.attributes.find((a) => a.name === 'href') : undefined;
      if (href && href.start !== -1) anchors.push(href);
      if (tag.name === 'plaintext') break;
      if (RAW_TEXT.has(tag.name)) {
        const close = new RegExp(`</${tag.name}[\\t\\n\\f\\r />]`, 'ig');
        close.lastIndex = i;
        const m = close.exec(html);
        i = m ? m.index : html.length;
      }
    } else {
      i = lt + 1;
    }
  }
  return { anchors, bodyClose };
}

/**
 * The character references an attribute may hold without a semicolon (the spec's legacy list):
 * `&amp;`…`&quot;` and the Latin-1 names for U+00A0–U+00FF, in code point order. With a
 * semicolon they decode too; any other name means the value is left alone (see decodeHref).
 */
const LATIN1 =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn ' +
  'sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave ' +
  'Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ' +
  'ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN ' +
  'szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave ' +
  'iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc ' +
  'uuml yacute thorn yuml';
const LEGACY = new Map<string, string>([
  ['amp', '&'],
  ['AMP', '&'],
  ['lt', '<'],
  ['LT', '<'],
  ['gt', '>'],
  ['GT', '>'],
  ['quot', '"'],
  ['QUOT', '"'],
  ['COPY', '\u00a9'],
  ['REG', '\u00ae'],
  ...LATIN1.split(' ').map((name, i): [string, string] => [name, String.fromCodePoint(0xa0 + i)]),
]);
/** Named only with the semicolon. */
const NAMED = new Map([...LEGACY, ['apos', "'"]]);

/**
 * An href as the browser sees it, or null when it holds a named reference outside the table
 * above (or a numeric one into C1, which browsers remap through windows-1252): then the link is
 * not tracked rather than risk signing a different URL than the one the author meant.
 */
function decodeHref(raw: string): string | null {
  let unknown = false;
  const fromCodePoint = (n: number) => {
    if (n >= 0x80 && n <= 0x9f) unknown = true;
    const invalid = n === 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff);
    return String.fromCodePoint(invalid ? 0xfffd : n);
  };
  const decoded = raw.replace(
    /&(?:#(\d+);?|#[xX]([0-9A-Fa-f]+);?|([A-Za-z][A-Za-z0-9]*)(;?))/g,
    (
      whole,
      dec: string | undefined,
      hex: string | undefined,
      name: string,
      semi: string,
      at: number,
    ) => {
      if (dec !== undefined) return fromCodePoint(Number.parseInt(dec, 10));
      if (hex !== undefined) return fromCodePoint(Number.parseInt(hex, 16));
      if (semi) {
        const value = NAMED.get(name);
        if (value === undefined) unknown = true;
        return value ?? whole;
      }
      // Without ';' in an attribute, only an exact legacy name not followed by '=' decodes.
      const value = LEGACY.get(name);
      return value !== undefined && raw[at + whole.length] !== '=' ? value : whole;
    },
  );
  return unknown ? null : decoded.trim();
}

const TRACKED = /^https?:\/\//i;

/** The http(s) links of an email's html as a browser reads them, in order, once each. */
export function emailLinks(html: string): string[] {
  const links = scanHtml(html).anchors.map((a) => decodeHref(a.value));
  return [...new Set(links.filter((l): l is string => l !== null && TRACKED.test(l)))];
}

interface Tracking {
  publicUrl: string;
  token: string;
  linkKey: Buffer;
  unsubscribeUrl: string;
}

/** Rewrites the links, adds the unsubscribe footer when the author gave none, then the pixel. */
function trackHtml(html: string, t: Tracking): string {
  const { anchors, bodyClose } = scanHtml(html);
  let out = '';
  let from = 0;
  let hasUnsubscribe = false;
  for (const href of anchors) {
    const target = decodeHref(href.value);
    if (target === t.unsubscribeUrl) hasUnsubscribe = true;
    if (target === null || target === t.unsubscribeUrl || !TRACKED.test(target)) continue;
    const url = clickUrl(t.publicUrl, t.token, target, t.linkKey);
    out += html.slice(from, href.start) + `"${escapeHtml(url)}"`;
    from = href.end;
  }
  const insertAt = bodyClose === -1 ? html.length : bodyClose;
  out += html.slice(from, insertAt);
  if (!hasUnsubscribe) {
    out +=
      '<p style="font-size:12px;color:#666">No longer want these emails? ' +
      `<a href="${escapeHtml(t.unsubscribeUrl)}">Unsubscribe</a></p>`;
  }
  out +=
    `<img src="${escapeHtml(t.publicUrl + TRACKING_PATHS.open(t.token))}"` +
    ' width="1" height="1" alt="" style="display:block;border:0">';
  return out + html.slice(insertAt);
}

/** RFC 6068: the address's characters outside its allowed set are percent-encoded. */
const mailtoAddress = (address: string) =>
  address.replace(/[^A-Za-z0-9\-._~!$'()*+,;:@]/gu, (c) => encodeURIComponent(c));

export function composeEmail(input: ComposeInput): ComposedEmail {
  if (input.html === null && input.text === null) {
    throw new TypeError('composeEmail: an email needs html or text');
  }
  // Message-IDs are ASCII; an internationalized sender domain goes in as punycode.
  const domain = emailDomain(input.fromEmail);
  const messageId = `<${input.id}@${domainToASCII(domain) || domain}>`;
  // The text part comes from the html as written, before links point at our redirects.
  let text = input.text ?? (input.html === null ? null : htmlToText(input.html));
  let html = input.html;

  const message: Mail.Options = {
    messageId,
    from: input.fromName
      ? { name: headerSafe(input.fromName), address: input.fromEmail }
      : input.fromEmail,
    to: input.to,
    // A contact's value rendered into the subject (one stored before the schemas refused control
    // characters, or from an import) must not start a header line of its own.
    subject: headerSafe(input.subject),
  };
  if (input.replyTo) message.replyTo = input.replyTo;

  if (input.tracking) {
    const { token, linkKey } = input.tracking;
    if (!TOKEN.test(token)) throw new TypeError('composeEmail: the tracking token must be base62');
    const publicUrl = input.tracking.publicUrl.replace(/\/+$/, '');
    const unsubscribeUrl = publicUrl + TRACKING_PATHS.unsubscribe(token);
    if (html !== null) html = trackHtml(html, { publicUrl, token, linkKey, unsubscribeUrl });
    if (text !== null) text += `\n\n--\nUnsubscribe: ${unsubscribeUrl}`;
    const mailto = `mailto:${mailtoAddress(input.fromEmail)}?subject=unsubscribe%20${token}`;
    // RFC 8058 one-click needs HTTPS: over plain http only the mailto is offered.
    const oneClick = /^https:\/\//i.test(publicUrl);
    message.list = { unsubscribe: [oneClick ? [unsubscribeUrl, mailto] : [mailto]] };
    if (oneClick) message.headers = { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
  }

  if (html !== null) message.html = html;
  if (text !== null) message.text = text;
  return { message, messageId };
}
