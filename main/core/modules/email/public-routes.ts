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

function page(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(
      `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`,
    );
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

  app.get<{ Params: { token: string } }>(
    '/e/u/:token',
    { config: { right: 'public' }, schema: { hide: true } },
    async (req, reply) => {
      const who = email.unsubscribeTarget(req.params.token);
      if (!who)
        return page(reply, 404, 'Link not found', '<p>This unsubscribe link is not valid.</p>');
      if (who.done) {
        return page(
          reply,
          200,
          'You are unsubscribed',
          `<p>${escape(who.address)} will not receive these emails any more.</p>`,
        );
      }
      return page(
        reply,
        200,
        'Unsubscribe',
        `<p>Stop emails to ${escape(who.address)}?</p><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
      );
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
      return page(
        reply,
        200,
        'You are unsubscribed',
        `<p>${escape(who.address)} will not receive these emails any more.</p>`,
      );
    },
  );
}
