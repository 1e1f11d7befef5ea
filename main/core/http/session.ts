/**
 * Browser sessions (design.md §6, README "Security"). A sign-in — a member's password, an
 * accepted invite, or the solo desk's one-click link — opens a session: a random id in an
 * HttpOnly, SameSite=Strict cookie (`__Host-` prefixed and `Secure` over TLS), stored hashed.
 *
 * The one-click link of headless `parley serve` is single-use and lives 10 minutes; `parley
 * login-url` mints another. It points at the UI's own host name, `p<PORT>.localhost` (browsers
 * resolve `*.localhost` to loopback), so the cookie — which browsers scope by host, not port —
 * is never sent to another program's server on 127.0.0.1.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import { privateFile } from '../files.ts';
import { LOOPBACK, uiHost } from './guards.ts';
import type { Client, MembersService } from '../modules/members/service.ts';
import { SESSION_ABSOLUTE_MS } from '../modules/members/service.ts';

const SERVE_FILE = 'serve.json';
/** The permanent secret earlier versions kept: removed at start, it signs nobody in any more. */
const LEGACY_SECRET_FILE = 'session.secret';

export const COOKIE = 'parley_session';
export const SECURE_COOKIE = '__Host-parley_session';

export { uiHost };

/** `http://p4780.localhost:4780` for `http://127.0.0.1:4780` (other hosts are kept as they are). */
export function uiBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  const loopback = LOOPBACK.has(url.hostname);
  if (loopback && url.protocol === 'http:' && url.port) url.hostname = uiHost(Number(url.port));
  return url.origin;
}

export const loginUrl = (baseUrl: string, token: string): string =>
  `${uiBaseUrl(baseUrl)}/login?token=${token}`;

/** Remembers where `parley serve` last listened, so `parley login-url` can print a link. */
export function recordServeUrl(dataDir: string, url: string): void {
  privateFile.write(path.join(dataDir, SERVE_FILE), `${JSON.stringify({ url })}\n`);
}

export function lastServeUrl(dataDir: string): string | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dataDir, SERVE_FILE), 'utf8')) as unknown;
    const url = (parsed as { url?: unknown } | null)?.url;
    return typeof url === 'string' && /^https?:\/\//.test(url) ? url : null;
  } catch {
    return null;
  }
}

/** Deletes the permanent login secret of earlier versions: its cookie must not outlive them. */
export function removeLegacySecret(dataDir: string): void {
  fs.rmSync(path.join(dataDir, LEGACY_SECRET_FILE), { force: true });
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const isTls = (req: FastifyRequest): boolean => req.protocol === 'https';

/** The session cookie the request carries, by the name its scheme uses. */
export const sessionCookie = (req: FastifyRequest): string | undefined =>
  readCookie(req.headers.cookie, isTls(req) ? SECURE_COOKIE : COOKIE);

export function setSessionCookie(reply: FastifyReply, req: FastifyRequest, token: string): void {
  const tls = isTls(req);
  reply.header(
    'set-cookie',
    `${tls ? SECURE_COOKIE : COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_ABSOLUTE_MS / 1000}${tls ? '; Secure' : ''}`,
  );
}

export function clearSessionCookie(reply: FastifyReply, req: FastifyRequest): void {
  const tls = isTls(req);
  reply.header(
    'set-cookie',
    `${tls ? SECURE_COOKIE : COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${tls ? '; Secure' : ''}`,
  );
}

export const clientOf = (req: FastifyRequest): Client => ({
  address: req.ip,
  userAgent: String(req.headers['user-agent'] ?? ''),
});

/** `GET /login?token=…`: the one-click link, exchanged once for a session of the desk's owner. */
export function registerLoginLink(
  app: FastifyInstance,
  members: MembersService,
  port: () => number | null,
  limit: (req: FastifyRequest) => void,
): void {
  app.get(
    '/login',
    { config: { right: 'public' }, schema: { hide: true } },
    async (req: FastifyRequest<{ Querystring: { token?: unknown } }>, reply) => {
      limit(req);
      const token = req.query.token;
      const p = port();
      const name = String(req.headers.host ?? '')
        .replace(/:\d+$/, '')
        .toLowerCase();
      // Opened on 127.0.0.1 or localhost: move to the UI's own host name first (the link is
      // not spent), so the cookie is set where no other loopback server receives it.
      const loopback = LOOPBACK.has(name);
      if (p !== null && !isTls(req) && loopback && typeof token === 'string') {
        return reply
          .header('cache-control', 'no-store')
          .redirect(`http://${uiHost(p)}:${p}/login?token=${encodeURIComponent(token)}`, 303);
      }
      const session =
        typeof token === 'string' && /^[A-Za-z0-9]{43}$/.test(token)
          ? members.useLoginLink(token, clientOf(req))
          : null;
      if (!session) return page(reply.code(403), INVALID_LINK_PAGE);
      setSessionCookie(reply, req, session.token);
      return reply.header('cache-control', 'no-store').redirect('/', 303);
    },
  );
}

function page(reply: FastifyReply, html: string) {
  return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
}

const INVALID_LINK_PAGE = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Parley — sign in</title>
<h1>This sign-in link is used or expired.</h1>
<p>A link signs in once, within 10 minutes. Run <code>parley login-url</code> on the same data dir for a new one, or <a href="/">sign in with your email and password</a>.</p></html>`;
