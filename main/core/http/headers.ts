import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';

/** Data answers (JSON, event streams, assets): nothing in them may load or frame anything. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * HTML pages (the UI, /docs, sign-in pages). The built UI loads only its own script and
 * stylesheet and talks only to this origin; React's `style` props go through the CSSOM, which
 * CSP does not govern, so no 'unsafe-inline' is needed. A page's own `<style>` blocks (the /docs
 * reference has one) are allowed by their hashes.
 */
export function pageCsp(styleHashes: string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    ["style-src 'self'", ...styleHashes.map((h) => `'${h}'`)].join(' '),
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function inlineStyleHashes(html: string): string[] {
  return [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(
    (m) => `sha256-${createHash('sha256').update(m[1]!).digest('base64')}`,
  );
}

/**
 * Every answer, pages and API alike, gets a Content-Security-Policy, nosniff and no-referrer.
 * They are set on the raw response first so that streams which write their own head (the event
 * stream) carry them too; an HTML answer then gets the page policy.
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (_req, reply) => {
    reply.raw.setHeader('content-security-policy', API_CSP);
    reply.raw.setHeader('x-content-type-options', 'nosniff');
    reply.raw.setHeader('referrer-policy', 'no-referrer');
  });
  // Pages are a few fixed strings (the UI's index, /docs): their policies are computed once.
  const policies = new Map<string, string>();
  app.addHook('onSend', async (_req, reply, payload) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('text/html') && reply.getHeader('content-security-policy') === API_CSP) {
      const html = typeof payload === 'string' ? payload : '';
      let policy = policies.get(html);
      if (policy === undefined) {
        policy = pageCsp(inlineStyleHashes(html));
        if (policies.size < 16) policies.set(html, policy);
      }
      reply.header('content-security-policy', policy);
    }
    return payload;
  });
}
