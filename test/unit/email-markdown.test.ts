import { describe, expect, it } from 'vitest';
import { markdownToEmailHtml } from '../../shared/email-markdown.ts';
import { renderEmailHtml } from '../../shared/email-rules.ts';

/** Markdown email bodies (issue 24 item 5): rendered once, the same on both sides. */
describe('markdownToEmailHtml', () => {
  it('renders CommonMark: headings, emphasis, lists, links', () => {
    expect(
      markdownToEmailHtml('# Hi\n\n*a* **b**\n\n- one\n- two\n\n[shop](https://acme.example)'),
    ).toBe(
      '<h1>Hi</h1>\n<p><em>a</em> <strong>b</strong></p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<p><a href="https://acme.example">shop</a></p>\n',
    );
  });

  it('shows raw HTML as text and refuses script links', () => {
    const html = markdownToEmailHtml(
      '<script>alert(1)</script> <img src=x onerror=alert(1)>\n\n[x](javascript:alert(1)) [y](vbscript:x) [z](data:text/html,x)',
    );
    expect(html).not.toMatch(/<script|<img|href="(javascript|vbscript|data):/i);
    expect(html).toContain('&lt;script&gt;');
  });

  it('keeps placeholders as written, in text and in link targets', () => {
    const html = markdownToEmailHtml(
      'Hi {{contact.firstName}}, *{{contact.name | "friend"}}*\n\n[go](https://acme.example/?e={{contact.email}}&n=1)',
    );
    expect(html).toBe(
      '<p>Hi {{contact.firstName}}, <em>{{contact.name | "friend"}}</em></p>\n<p><a href="https://acme.example/?e={{contact.email}}&amp;n=1">go</a></p>\n',
    );
    // …and fill like an HTML body: values escaped.
    const filled = renderEmailHtml(html, {
      name: 'Ann <b>',
      phone: '',
      email: 'ann@example.com',
      attributes: {},
    });
    expect(filled).toContain('Hi Ann, <em>Ann &lt;b&gt;</em>');
    expect(filled).toContain('?e=ann@example.com&amp;n=1');
  });

  it('sets aside only real placeholders: other braces cannot inject a tag or an attribute', () => {
    const tag = markdownToEmailHtml('hi {{<img src=x onerror=alert(1)>}}');
    expect(tag).toBe('<p>hi {{&lt;img src=x onerror=alert(1)&gt;}}</p>\n');
    const attr = markdownToEmailHtml('[x](<{{" onmouseover="alert(1)}}>)');
    expect(attr).not.toMatch(/onmouseover="/);
    expect(attr).toMatch(/^<p><a href="[^"<>]*">x<\/a><\/p>\n$/);
    // Every tag is Parley's own: a paragraph, a link with nothing but its href.
    for (const html of [tag, attr]) {
      for (const t of html.match(/<[^>]*>/g)!) expect(t).toMatch(/^<\/?(p|a)( href="[^"]*")?>$/);
    }
    // A real placeholder is put back with its < > escaped, and " too inside a tag, so even a
    // fallback or an attribute key cannot close the attribute or open a tag.
    const real = markdownToEmailHtml(
      '{{contact.attributes.<b>}} [x](https://a.example/?n={{contact.name | " onmouseover=alert(1) y"}})',
    );
    expect(real).toBe(
      '<p>{{contact.attributes.&lt;b&gt;}} <a href="https://a.example/?n={{contact.name | &quot; onmouseover=alert(1) y&quot;}}">x</a></p>\n',
    );
  });

  it('is not fooled by text that looks like its own markers', () => {
    expect(markdownToEmailHtml('mdph0x and {{contact.name}}')).toBe(
      '<p>mdph0x and {{contact.name}}</p>\n',
    );
  });
});
