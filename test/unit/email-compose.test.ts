import { simpleParser } from 'mailparser';
import type { ParsedMail } from 'mailparser';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { describe, expect, it } from 'vitest';
import type { ComposeInput } from '../../main/core/email/compose.ts';
import {
  clickUrl,
  composeEmail,
  TRACKING_PATHS,
  verifyClick,
} from '../../main/core/email/compose.ts';
import {
  EMAIL_LIMITS,
  emailDomain,
  emailPlaceholderProblems,
  isEmailAddress,
  renderEmailHtml,
  renderEmailText,
} from '../../shared/email-rules.ts';

const ada = {
  name: 'Ada <Lovelace> & "Co" \'s',
  phone: '+14155552671',
  email: null,
  attributes: { plan: 'pro', seats: 3, blank: '  ' },
};

const TOKEN = 'Tk9pQ2VxWnR3b0xhVmx4eWE';
const KEY = Buffer.from('0123456789abcdef0123456789abcdef');

function input(over: Partial<ComposeInput> = {}): ComposeInput {
  return {
    id: 'em_01JTEST',
    fromName: 'Parley News',
    fromEmail: 'News@Mail.Example.COM',
    replyTo: 'help@example.com',
    to: 'ada@example.org',
    subject: 'Hello Ada',
    html: '<html><body><p>Hi</p></body></html>',
    text: null,
    tracking: null,
    ...over,
  };
}

const tracking = (publicUrl: string) => ({ publicUrl, token: TOKEN, linkKey: KEY });

/** The message as a receiving server would parse it: nodemailer builds it, mailparser reads it. */
async function built(message: Mail.Options): Promise<ParsedMail> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  const info = await transport.sendMail(message);
  return simpleParser(info.message as Buffer);
}

/** A header exactly as written, unfolded; null when the message has none. */
function rawHeader(mail: ParsedMail, name: string): string | null {
  const line = mail.headerLines.find((h) => h.key === name.toLowerCase())?.line;
  return line === undefined
    ? null
    : line
        .slice(line.indexOf(':') + 1)
        .replace(/\r?\n[ \t]+/g, ' ')
        .trim();
}

/** Every href in the html, entities decoded as a browser would for these simple cases. */
const hrefs = (html: string) =>
  [...html.matchAll(/href=(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)].map((m) =>
    (m[1] ?? m[2] ?? m[3]!).replace(/&quot;/g, '"').replace(/&amp;/g, '&'),
  );

describe('email addresses', () => {
  it('accepts routable addresses, unicode included', () => {
    for (const a of [
      'ada@example.com',
      'Ada.Lovelace+news@mail.example.co.uk',
      'josé@bücher.de',
      '"ada lovelace"@example.com',
    ]) {
      expect(isEmailAddress(a), a).toBe(true);
    }
  });

  it('refuses what a server would not route or what is not a bare address', () => {
    for (const a of [
      '',
      'a@b',
      'x@localhost',
      'ada@example',
      'Ada <ada@example.com>',
      'ada@127.0.0.1',
      'ada@[127.0.0.1]',
      'ada lovelace@example.com',
      'ada..l@example.com',
      'ada@example.com\r\nBcc: eve@example.com',
      'example.com',
    ]) {
      expect(isEmailAddress(a), a).toBe(false);
    }
  });

  it('allows 254 characters and no more', () => {
    const domain = (last: number) => `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(last)}.com`;
    const at254 = `${'x'.repeat(64)}@${domain(57)}`;
    const at255 = `${'x'.repeat(64)}@${domain(58)}`;
    expect(at254).toHaveLength(254);
    expect(isEmailAddress(at254)).toBe(true);
    expect(isEmailAddress(at255)).toBe(false);
  });

  it('reads the domain after the last @, lower-cased', () => {
    expect(emailDomain('Ada@Mail.Example.COM')).toBe('mail.example.com');
    expect(emailDomain('"a@b"@Example.com')).toBe('example.com');
  });

  it('states the limits the API and the editor enforce', () => {
    expect(EMAIL_LIMITS).toEqual({
      subject: 200,
      fromName: 100,
      html: 524_288,
      text: 262_144,
      name: 200,
    });
  });
});

describe('email placeholders', () => {
  it('fills text as is and renders a missing value empty, leaving unknown ones', () => {
    expect(
      renderEmailText(
        'Hi {{ contact.name }} ({{contact.phone}}), {{contact.attributes.seats}} seats on {{contact.attributes.plan}}.' +
          ' Mail: [{{contact.email}}][{{contact.attributes.blank}}][{{contact.attributes.none}}] {{contact.nmae}} {{1}}',
        ada,
      ),
    ).toBe(`Hi ${ada.name} (+14155552671), 3 seats on pro. Mail: [][][] {{contact.nmae}} {{1}}`);
  });

  it('escapes every value filled into html, never the template itself', () => {
    expect(
      renderEmailHtml(
        '<p title="{{contact.name}}">Hi <b>{{contact.name}}</b>{{contact.email}}</p>',
        ada,
      ),
    ).toBe(
      '<p title="Ada &lt;Lovelace&gt; &amp; &quot;Co&quot; &#39;s">Hi <b>Ada &lt;Lovelace&gt; &amp; &quot;Co&quot; &#39;s</b></p>',
    );
  });

  it('lists unknown placeholders once each, as written', () => {
    expect(
      emailPlaceholderProblems('{{contact.nmae}} {{ contact.name }} {{1}} {{contact.nmae}}'),
    ).toEqual(['{{contact.nmae}}', '{{1}}']);
    expect(emailPlaceholderProblems('Hi {{contact.attributes.plan}}')).toEqual([]);
  });
});

describe('composing a transactional email', () => {
  it('sets the sender, Message-ID on the sender domain and no list headers', async () => {
    const { message, messageId } = composeEmail(input());
    expect(messageId).toBe('<em_01JTEST@mail.example.com>');
    const mail = await built(message);
    expect(mail.messageId).toBe(messageId);
    // nodemailer writes the domain lower-cased.
    expect(mail.from?.value).toEqual([{ name: 'Parley News', address: 'News@mail.example.com' }]);
    expect(mail.replyTo?.value).toEqual([{ name: '', address: 'help@example.com' }]);
    expect(mail.subject).toBe('Hello Ada');
    expect(rawHeader(mail, 'List-Unsubscribe')).toBeNull();
    expect(rawHeader(mail, 'List-Unsubscribe-Post')).toBeNull();
    expect(mail.html).toBe('<html><body><p>Hi</p></body></html>');
  });

  it('generates the text part from the html: wrapped, links as "text [url]", no images', async () => {
    const html =
      '<html><head><style>p{color:red}</style></head><body><p>Read <a href="https://example.com/post?a=1&amp;b=2">our post</a>' +
      ' or visit <a href="https://example.com">https://example.com</a>.<img src="https://example.com/logo.png" alt="Logo"></p>' +
      `<p>${'word '.repeat(30)}</p></body></html>`;
    const { message } = composeEmail(input({ html }));
    const text = message.text as string;
    expect(text).toContain('Read our post [https://example.com/post?a=1&b=2] or visit');
    expect(text).toContain('https://example.com.');
    expect(text).not.toMatch(/logo|Logo|color/);
    expect(Math.max(...text.split('\n').map((l) => l.length))).toBeLessThanOrEqual(78);
    const mail = await built(message);
    expect(mail.html).toBe(html);
    expect(mail.text?.trim()).toBe(text);
  });

  it('sends text alone, an address without a name, and keeps a rendered subject on one line', async () => {
    const { message } = composeEmail(
      input({
        html: null,
        text: 'Plain body',
        fromName: null,
        replyTo: null,
        subject: 'Hi\r\nBcc: eve@example.com',
      }),
    );
    const mail = await built(message);
    expect(mail.html).toBe(false);
    expect(mail.text?.trim()).toBe('Plain body');
    expect(mail.from?.value).toEqual([{ name: '', address: 'News@mail.example.com' }]);
    expect(mail.replyTo).toBeUndefined();
    expect(mail.subject).toBe('Hi Bcc: eve@example.com');
    expect(mail.bcc).toBeUndefined();
  });

  it('refuses an email without a body and a tracking token that is not base62', () => {
    expect(() => composeEmail(input({ html: null, text: null }))).toThrow(/html or text/);
    expect(() =>
      composeEmail(
        input({ tracking: { ...tracking('https://mail.example.com'), token: 'short' } }),
      ),
    ).toThrow(/token/);
  });
});

describe('composing a campaign email', () => {
  const publicUrl = 'https://mail.example.com';
  const unsubscribeUrl = `${publicUrl}/e/u/${TOKEN}`;
  const pixel = `<img src="${publicUrl}/e/o/${TOKEN}.gif" width="1" height="1" alt="" style="display:block;border:0">`;

  it('names the tracking routes', () => {
    expect(TRACKING_PATHS.open(TOKEN)).toBe(`/e/o/${TOKEN}.gif`);
    expect(TRACKING_PATHS.click(TOKEN)).toBe(`/e/c/${TOKEN}`);
    expect(TRACKING_PATHS.unsubscribe(TOKEN)).toBe(`/e/u/${TOKEN}`);
  });

  it('points every http(s) link at a signed redirect and leaves the others alone', () => {
    const html = [
      '<html><body>',
      '<a href="https://shop.example.com/sale?a=1&amp;b=2">Sale</a>',
      "<a href='http://example.com/x'>single</a>",
      '<a class=btn href=https://example.com/unquoted>unquoted</a>',
      '<a href=" HTTPS://Example.com/spaced ">spaced</a>',
      '<a href="mailto:ada@example.com">mail</a> <a href="tel:+14155552671">call</a>',
      '<a href="#top">top</a> <a href="/relative">relative</a> <a name="x">no href</a>',
      '<!-- <a href="https://example.com/commented">c</a> -->',
      '<script>var s = \'<a href="https://example.com/script">\';</script>',
      '<a HREF="https://example.com/first" href="https://example.com/second">dup</a>',
      '<a title="a > b" href="https://example.com/after-gt">gt</a>',
      '</body></html>',
    ].join('\n');
    const { message } = composeEmail(input({ html, tracking: tracking(publicUrl) }));
    const out = message.html as string;

    const click = (target: string) => clickUrl(publicUrl, TOKEN, target, KEY);
    expect(hrefs(out)).toEqual([
      click('https://shop.example.com/sale?a=1&b=2'),
      click('http://example.com/x'),
      click('https://example.com/unquoted'),
      click('HTTPS://Example.com/spaced'),
      'mailto:ada@example.com',
      'tel:+14155552671',
      '#top',
      '/relative',
      'https://example.com/commented',
      'https://example.com/script',
      click('https://example.com/first'),
      'https://example.com/second',
      click('https://example.com/after-gt'),
      unsubscribeUrl,
    ]);
    // The click URL is re-encoded for the attribute: its '&' is written as '&amp;'.
    const sig = new URL(click('https://shop.example.com/sale?a=1&b=2')).searchParams.get('s')!;
    expect(out).toContain(
      `href="${publicUrl}/e/c/${TOKEN}?u=${encodeURIComponent('https://shop.example.com/sale?a=1&b=2')}&amp;s=${sig}"`,
    );
    expect(out).toContain('<a class=btn href="');
    expect(out).toContain('<!-- <a href="https://example.com/commented">c</a> -->');
  });

  it('signs click targets so that a changed target, signature or token is refused', () => {
    const target = 'https://shop.example.com/sale?a=1&b=2';
    const url = new URL(clickUrl(publicUrl, TOKEN, target, KEY));
    expect(url.pathname).toBe(`/e/c/${TOKEN}`);
    expect(url.searchParams.get('u')).toBe(target);
    const sig = url.searchParams.get('s')!;
    expect(sig).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(verifyClick(TOKEN, target, sig, KEY)).toBe(true);
    expect(verifyClick(TOKEN, 'https://evil.example.net/', sig, KEY)).toBe(false);
    expect(verifyClick(TOKEN, target + '&c=3', sig, KEY)).toBe(false);
    const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    expect(verifyClick(TOKEN, target, flipped, KEY)).toBe(false);
    expect(verifyClick(TOKEN, target, sig.slice(0, 21), KEY)).toBe(false);
    expect(verifyClick(TOKEN, target, sig + 'A', KEY)).toBe(false);
    expect(verifyClick(TOKEN.replace(/^T/, 'U'), target, sig, KEY)).toBe(false);
    expect(verifyClick(TOKEN, target, sig, Buffer.from('another key'))).toBe(false);
  });

  it('decodes character references in an href as a browser would before signing', () => {
    const html = [
      '<a href="https://example.com/?q=caf&eacute;&amp;n=&#49;&#x32;">named and numeric</a>',
      '<a href="https://example.com/?a=1&copy=2&amp=3&region=eu">legacy names before "=" stay</a>',
      '<a href="https://example.com/?a&para&b">a legacy name alone decodes</a>',
      '<a href="https://example.com/?q=&hellip;">unknown reference</a>',
      '<a href="https://example.com/?q=&#150;">C1 reference</a>',
    ].join('');
    const { message } = composeEmail(input({ html, tracking: tracking(publicUrl) }));
    const click = (target: string) => clickUrl(publicUrl, TOKEN, target, KEY);
    expect(hrefs(message.html as string).slice(0, 5)).toEqual([
      click('https://example.com/?q=café&n=12'),
      click('https://example.com/?a=1&copy=2&amp=3&region=eu'),
      click('https://example.com/?a\u00b6&b'),
      // Not tracked rather than redirect to a URL that might differ from the author's.
      'https://example.com/?q=&hellip;',
      'https://example.com/?q=&#150;',
    ]);
  });

  it('adds the unsubscribe footer and then the open pixel just before </body>', () => {
    const html = '<html><body><p>Hi</p></body>\n</html>';
    const { message } = composeEmail(input({ html, tracking: tracking(publicUrl) }));
    expect(message.html).toBe(
      '<html><body><p>Hi</p>' +
        `<p style="font-size:12px;color:#666">No longer want these emails? <a href="${unsubscribeUrl}">Unsubscribe</a></p>` +
        pixel +
        '</body>\n</html>',
    );
  });

  it('appends them at the end of html without a body tag, and skips a footer the author wrote', () => {
    const html = `<p>Hi</p><p><a href="${unsubscribeUrl}">Leave the list</a></p><!-- </body> -->`;
    const { message } = composeEmail(input({ html, tracking: tracking(publicUrl) }));
    expect(message.html).toBe(html + pixel);
  });

  it('adds the unsubscribe link to the text part and leaves its links as written', () => {
    const { message } = composeEmail(
      input({
        html: null,
        text: 'Sale: https://shop.example.com/sale',
        tracking: tracking(publicUrl),
      }),
    );
    expect(message.text).toBe(
      `Sale: https://shop.example.com/sale\n\n--\nUnsubscribe: ${unsubscribeUrl}`,
    );
    expect(message.html).toBeUndefined();
  });

  it('generates the text part from the html before its links are rewritten', () => {
    const html = '<body><p><a href="https://shop.example.com/sale">Sale</a></p></body>';
    const { message } = composeEmail(input({ html, tracking: tracking(publicUrl) }));
    expect(message.text).toBe(
      `Sale [https://shop.example.com/sale]\n\n--\nUnsubscribe: ${unsubscribeUrl}`,
    );
  });

  it('offers one-click unsubscribe over https: the URL, the mailto and List-Unsubscribe-Post', async () => {
    const { message } = composeEmail(input({ tracking: tracking(`${publicUrl}/`) }));
    const mail = await built(message);
    expect(rawHeader(mail, 'List-Unsubscribe')).toBe(
      `<${unsubscribeUrl}>, <mailto:News@Mail.Example.COM?subject=unsubscribe%20${TOKEN}>`,
    );
    expect(rawHeader(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(mail.headerLines.filter((h) => h.key === 'list-unsubscribe')).toHaveLength(1);
  });

  it('offers only the mailto over plain http, where RFC 8058 does not apply', async () => {
    const { message } = composeEmail(input({ tracking: tracking('http://127.0.0.1:4000') }));
    const mail = await built(message);
    expect(rawHeader(mail, 'List-Unsubscribe')).toBe(
      `<mailto:News@Mail.Example.COM?subject=unsubscribe%20${TOKEN}>`,
    );
    expect(rawHeader(mail, 'List-Unsubscribe-Post')).toBeNull();
    // The footer still links the confirmation page, which works over http.
    expect(mail.html).toContain(`href="http://127.0.0.1:4000/e/u/${TOKEN}"`);
    expect(mail.html).toContain(`src="http://127.0.0.1:4000/e/o/${TOKEN}.gif"`);
  });
});
