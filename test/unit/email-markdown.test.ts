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

  it('is not fooled by text that looks like its own markers', () => {
    expect(markdownToEmailHtml('mdph0x and {{contact.name}}')).toBe(
      '<p>mdph0x and {{contact.name}}</p>\n',
    );
  });
});
