import type { FastifyInstance, FastifyReply } from 'fastify';
import { verifyClick } from '../../email/compose.ts';
import { clientKey } from '../../http/auth.ts';
import type { RateLimitConfig } from '../../http/rate-limit.ts';
import { createRateLimiter } from '../../http/rate-limit.ts';
import type { Clock } from '../../runtime.ts';
import type { EmailService } from './service.ts';

/**
 * Per client address. A mail provider's image proxy fetches the pixels of many recipients from
 * few addresses, so the budget is generous; it still caps a flood at a rate SQLite shrugs off.
 */
export const EMAIL_LINK_RATE_LIMIT: RateLimitConfig = { perSecond: 50, burst: 300 };
/** A one-click body is a single form field; anything larger is not a mail provider's. */
const ONE_CLICK_BODY_LIMIT = 64 * 1024;

/** A transparent 1×1 GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The public pages' look: one `<style>` block of their own (allowed by its hash, headers.ts), no
 * fonts, images or scripts from anywhere, readable from 320 px up, dark mode included.
 */
const PAGE_CSS = `
:root { color-scheme: light dark; --bg: #f4f5f8; --card: #fff; --ink: #1d2433; --muted: #4a5568; --accent: #2f5bea; --accent-ink: #fff; --line: #d7dbe3; --ok: #146c43; }
@media (prefers-color-scheme: dark) { :root { --bg: #14171f; --card: #1d212b; --ink: #eef0f5; --muted: #b8bfcc; --accent: #8aa6ff; --accent-ink: #10131a; --line: #343a48; --ok: #6fd39b; } }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 24px 16px; background: var(--bg); color: var(--ink); font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
main { width: 100%; max-width: 480px; background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 28px 28px 24px; }
.brand { display: flex; align-items: center; gap: 12px; margin: 0 0 20px; color: var(--muted); font-size: 14px; }
.mark { flex: none; width: 40px; height: 40px; border-radius: 50%; display: grid; place-items: center; background: var(--accent); color: var(--accent-ink); font-weight: 700; font-size: 18px; }
.brand strong { display: block; color: var(--ink); font-size: 16px; }
h1 { font-size: 22px; line-height: 1.3; margin: 0 0 12px; }
p { margin: 0 0 12px; }
.who { overflow-wrap: anywhere; font-weight: 600; }
.done { color: var(--ok); font-weight: 600; }
form { margin: 20px 0 0; }
button { font: inherit; font-weight: 600; padding: 10px 18px; border-radius: 8px; border: 2px solid var(--accent); background: var(--accent); color: var(--accent-ink); cursor: pointer; min-height: 44px; }
button.secondary { background: transparent; color: var(--accent); }
button:focus-visible { outline: 3px solid var(--ink); outline-offset: 2px; }
.preview { margin: -8px 0 20px; padding: 8px 12px; border: 2px dashed var(--accent); border-radius: 8px; font-size: 14px; }
footer { margin-top: 24px; padding-top: 12px; border-top: 1px solid var(--line); color: var(--muted); font-size: 13px; }
`;

interface PageOptions {
  /** Who sends these emails: named at the top of the page. */
  sender?: { name: string | null; email: string | null } | null;
  /**
   * The owner's preview (GET /v1/email/campaigns/:id/unsubscribe-preview): marked "Preview", its
   * buttons do nothing, and its look comes from /e/page.css (a frame inherits the desk's policy,
   * which allows the desk's own stylesheets, not this page's `<style>`).
   */
  preview?: boolean;
}

/** Served for the preview's frame: the very rules the recipients' pages carry inline. */
export const PAGE_CSS_PATH = '/e/page.css';

function pageHtml(title: string, body: string, opts: PageOptions = {}): string {
  const senderName = opts.sender?.name || opts.sender?.email || null;
  const brand = senderName
    ? `<div class="brand"><span class="mark" aria-hidden="true">${escape(
        [...senderName.trim()][0]?.toUpperCase() ?? '?',
      )}</span><span><strong>${escape(senderName)}</strong>${
        opts.sender?.email && opts.sender.name ? escape(opts.sender.email) : 'Email preferences'
      }</span></div>`
    : '';
  const style = opts.preview
    ? `<link rel="stylesheet" href="${PAGE_CSS_PATH}">`
    : `<style>${PAGE_CSS}</style>`;
  const mark = opts.preview
    ? '<p class="preview" role="note"><strong>Preview</strong> · what a recipient sees. Its buttons do nothing here: no one is unsubscribed.</p>'
    : '';
  return `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${opts.preview ? 'Preview: ' : ''}${escape(title)}</title>${style}<body><main>${mark}${brand}<h1>${escape(title)}</h1>${body}<footer>Email preferences for this address only. Nothing else about you changes.</footer></main></body></html>`;
}

function page(
  reply: FastifyReply,
  status: number,
  title: string,
  body: string,
  opts: PageOptions = {},
) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(pageHtml(title, body, opts));
}

type Target = NonNullable<ReturnType<EmailService['unsubscribeTarget']>>;

/** "ann@example.com gets these emails from Acme Shop, sent to the list “VIP”." */
function whatSentence(who: Target): string {
  const from = who.senderName ?? who.senderEmail;
  const to = who.audience ? `, sent to ${escape(who.audience)}` : '';
  // The campaign's name is the team's own ("only you and your team see it"): not shown.
  return `<span class="who">${escape(who.address)}</span> gets emails${from ? ` from ${escape(from)}` : ''}${to}.`;
}

export type SubscriptionState = 'ask' | 'unsubscribed' | 'resubscribed';

/**
 * The page of an unsubscribe link, in each of its states; forms post without scripts. With no
 * token (the owner's preview) its buttons post nowhere.
 */
export function subscriptionHtml(
  token: string | null,
  who: Target,
  state: SubscriptionState,
): string {
  const opts = { sender: { name: who.senderName, email: who.senderEmail }, preview: !token };
  const from = escape(who.senderName ?? who.senderEmail ?? 'this sender');
  const contact =
    who.senderEmail && who.senderName
      ? `${escape(who.senderName)} (${escape(who.senderEmail)})`
      : escape(who.senderEmail ?? who.senderName ?? 'the sender');
  const form = (action: string, button: string) =>
    token
      ? `<form method="post" action="${action}">${button.replace('<button', '<button type="submit"')}</form>`
      : `<form>${button.replace('<button', '<button type="button"')}</form>`;
  // Relative actions: the page may sit behind a public URL with a path of its own.
  const unsubscribeForm = form(
    token ?? '',
    '<input type="hidden" name="List-Unsubscribe" value="One-Click"><button>Unsubscribe</button>',
  );
  if (state === 'unsubscribed') {
    // Only this email's own, recent unsubscribe can be undone here (RESUBSCRIBE_WINDOW_MS): an
    // old or forwarded email cannot re-enrol the address.
    const undo = who.canResubscribe
      ? `<p>Unsubscribed by mistake? You can undo it within an hour.</p>${form(`${token ?? ''}/resubscribe`, '<button class="secondary">Resubscribe</button>')}`
      : `<p>This link cannot subscribe the address again: an unsubscribe can be undone only within an hour, from the email it was made in. To get these emails again, use the link in a newer email from ${from}, or contact ${contact}.</p>`;
    return pageHtml(
      'You are unsubscribed',
      `<p class="done">Done: ${escape(who.address)} will not get campaign emails from ${from} any more.</p>${undo}`,
      opts,
    );
  }
  if (state === 'resubscribed') {
    return pageHtml(
      'You are subscribed again',
      `<p class="done">Welcome back: ${escape(who.address)} will get emails from ${from} again.</p><p>${whatSentence(who)}</p><p>Changed your mind?</p>${unsubscribeForm}`,
      opts,
    );
  }
  return pageHtml(
    `Unsubscribe from ${who.senderName ?? who.senderEmail ?? 'these'} emails?`,
    `<p>${whatSentence(who)}</p><p>Unsubscribe to stop every campaign email from ${from} to this address.</p>${unsubscribeForm}`,
    opts,
  );
}

function subscriptionPage(
  reply: FastifyReply,
  token: string,
  who: Target,
  state: SubscriptionState,
  status = 200,
) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(subscriptionHtml(token, who, state));
}

/**
 * What an email's recipient reaches without an API key (README "Email"): the open
 * pixel, click redirects (only to targets signed into the email) and the unsubscribe link (a
 * confirmation page on GET, RFC 8058 one-click on POST). Tokens are unguessable; these routes
 * take part in nothing else.
 */
export function registerEmailPublicRoutes(
  app: FastifyInstance,
  email: EmailService,
  clock: Clock,
  limits: RateLimitConfig = EMAIL_LINK_RATE_LIMIT,
) {
  // RFC 8058's one-click POST SHOULD be multipart/form-data; mail providers also send it
  // urlencoded, and the confirmation page's form posts urlencoded. The token in the URL is the
  // proof, so any body of any type is accepted (and not read); only its size is bounded.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: ONE_CLICK_BODY_LIMIT },
    (_req, _body, done) => done(null, undefined),
  );

  // Anyone may call these, so each client address has a budget (429 `rate_limited` with
  // Retry-After): a flood of pixel or click requests cannot hold the database's writer.
  const limit = createRateLimiter(limits, clock, 'email-links');
  app.addHook('onRequest', async (req) => limit(clientKey(req)));

  app.get(
    PAGE_CSS_PATH,
    { config: { right: 'public' }, schema: { hide: true } },
    async (_req, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(PAGE_CSS),
  );

  app.get<{ Params: { file: string } }>(
    '/e/o/:file',
    { config: { right: 'public' }, schema: { hide: true } },
    async (req, reply) => {
      const token = req.params.file.replace(/\.gif$/, '');
      email.opened(token);
      return reply.type('image/gif').header('cache-control', 'no-store, max-age=0').send(PIXEL);
    },
  );

  app.get<{ Params: { token: string }; Querystring: { u?: string; s?: string } }>(
    '/e/c/:token',
    { config: { right: 'public' }, schema: { hide: true } },
    async (req, reply) => {
      const { u, s } = req.query;
      const target =
        typeof u === 'string' && typeof s === 'string' && /^https?:\/\//i.test(u)
          ? email.clicked(req.params.token, u, s, (key) => verifyClick(req.params.token, u, s, key))
          : null;
      if (!target) {
        return page(reply, 404, 'Link not found', '<p>This link is not valid or has expired.</p>');
      }
      return reply.header('cache-control', 'no-store').redirect(target, 302);
    },
  );

  app.get<{ Params: { token: string }; Querystring: { resubscribed?: string } }>(
    '/e/u/:token',
    { config: { right: 'public' }, schema: { hide: true } },
    async (req, reply) => {
      const who = email.unsubscribeTarget(req.params.token);
      if (!who)
        return page(reply, 404, 'Link not found', '<p>This unsubscribe link is not valid.</p>');
      const state = who.done ? 'unsubscribed' : req.query.resubscribed ? 'resubscribed' : 'ask';
      return subscriptionPage(reply, req.params.token, who, state);
    },
  );

  app.post<{ Params: { token: string } }>(
    '/e/u/:token',
    { config: { right: 'public' }, schema: { hide: true } },
    async (req, reply) => {
      if (!email.unsubscribe(req.params.token)) {
        return page(reply, 404, 'Link not found', '<p>This unsubscribe link is not valid.</p>');
      }
      const who = email.unsubscribeTarget(req.params.token)!;
      return subscriptionPage(reply, req.params.token, who, 'unsubscribed');
    },
  );

  // "Resubscribe" undoes this email's recent unsubscribe, then shows the page again (post,
  // redirect, get: a reload does not post twice). Otherwise the unsubscribed page says how to
  // get these emails again (403).
  app.post<{ Params: { token: string } }>(
    '/e/u/:token/resubscribe',
    { config: { right: 'public' }, schema: { hide: true } },
    async (req, reply) => {
      const result = email.resubscribe(req.params.token);
      if (result === 'unknown') {
        return page(reply, 404, 'Link not found', '<p>This link is not valid.</p>');
      }
      if (result === 'refused') {
        const who = email.unsubscribeTarget(req.params.token)!;
        return subscriptionPage(reply, req.params.token, who, 'unsubscribed', 403);
      }
      return reply
        .header('cache-control', 'no-store')
        .redirect(`../${req.params.token}?resubscribed=1`, 303);
    },
  );
}
