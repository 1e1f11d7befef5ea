/**
 * Browser sign-in for headless `parley serve`, the way notebook servers do it: the server prints
 * a login URL carrying a secret; opening it sets an HttpOnly, SameSite=Strict cookie and
 * redirects to the app, so the secret leaves the address bar and no page ever contains a
 * credential. The secret lives in the data dir (mode 0600) and the cookie is derived from it, so
 * restarting `parley serve` on the same data dir does not sign an open tab out.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { privateDir, privateFile } from '../files.ts';
import type { Random } from '../runtime.ts';
import { randomBase62 } from '../runtime.ts';

export const LOGIN_SECRET_FILE = 'session.secret';
const SERVE_FILE = 'serve.json';
/** 43 base62 characters: 256 bits. */
const SECRET_LENGTH = 43;

export class SessionSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionSecretError';
  }
}

/** Reads the data dir's login secret, creating it (once, atomically, mode 0600) when absent. */
export function loadLoginSecret(dataDir: string, random: Random): string {
  const file = path.join(dataDir, LOGIN_SECRET_FILE);
  privateDir.ensure(dataDir);
  privateFile.createOnce(file, () => `${randomBase62(random, SECRET_LENGTH)}\n`);
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (!/^[A-Za-z0-9]{43,200}$/.test(secret)) {
    throw new SessionSecretError(
      `${file} is not a Parley login secret; delete it and start again to make a new one (open tabs will have to sign in again)`,
    );
  }
  return secret;
}

export const loginUrl = (baseUrl: string, secret: string): string =>
  `${baseUrl.replace(/\/+$/, '')}/login?token=${secret}`;

/** Remembers where `parley serve` last listened, so `parley login-url` can print a link. */
export function recordServeUrl(dataDir: string, url: string): void {
  privateFile.write(path.join(dataDir, SERVE_FILE), `${JSON.stringify({ url })}\n`);
}

export function lastServeUrl(dataDir: string): string | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dataDir, SERVE_FILE), 'utf8')) as unknown;
    const url = (parsed as { url?: unknown } | null)?.url;
    return typeof url === 'string' && /^http:\/\//.test(url) ? url : null;
  } catch {
    return null;
  }
}

/** Compares two secrets in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export interface BrowserSession {
  /** True when the request carries this server's session cookie. */
  verify(req: FastifyRequest): boolean;
  /** The login route: `GET /login?token=…`. */
  register(app: FastifyInstance, limit: (req: FastifyRequest) => void): void;
}

/**
 * Cookie-based sessions for a login secret. The cookie's name carries the port (as notebook
 * servers do) because browsers share cookies across ports of one host: two Parley servers on
 * one machine must not sign each other out.
 */
export function browserSession(secret: string, port: () => number | null): BrowserSession {
  const value = createHmac('sha256', secret).update('parley session cookie v1').digest('base64url');
  const name = () => {
    const p = port();
    return p === null ? 'parley_session' : `parley_session_${p}`;
  };
  return {
    verify(req) {
      const cookie = readCookie(req.headers.cookie, name());
      return cookie !== undefined && sameSecret(cookie, value);
    },
    register(app, limit) {
      app.get(
        '/login',
        { config: { right: 'public' }, schema: { hide: true } },
        async (req: FastifyRequest<{ Querystring: { token?: unknown } }>, reply) => {
          limit(req);
          const token = req.query.token;
          if (typeof token !== 'string' || !sameSecret(token, secret)) {
            return page(reply.code(403), INVALID_LINK_PAGE);
          }
          return reply
            .header(
              'set-cookie',
              `${name()}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${400 * 24 * 3600}`,
            )
            .header('cache-control', 'no-store')
            .redirect('/', 303);
        },
      );
    },
  };
}

function page(reply: FastifyReply, html: string) {
  return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
}

const INVALID_LINK_PAGE = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Parley — sign in</title>
<h1>This sign-in link is not valid.</h1>
<p>Open the link that <code>parley serve</code> printed. Lost it? Run <code>parley login-url</code> on the same data dir.</p></html>`;
