import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jsonSchemaTransform, validatorCompiler } from 'fastify-type-provider-zod';
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../../../shared/errors.ts';
import { contactsRoutes, IMPORT_BODY_LIMIT } from '../modules/contacts/routes.ts';
import { conversationsRoutes } from '../modules/conversations/routes.ts';
import { eventsRoutes } from '../modules/events/routes.ts';
import { keysRoutes } from '../modules/keys/routes.ts';
import { messagesRoutes } from '../modules/messages/routes.ts';
import { simulatorRoutes } from '../modules/simulator/routes.ts';
import { settingsRoutes, systemRoutes } from '../modules/system/routes.ts';
import { templatesRoutes } from '../modules/templates/routes.ts';
import { pricesRoutes, walletRoutes } from '../modules/wallet/routes.ts';
import { webhooksRoutes } from '../modules/webhooks/routes.ts';
import type { Services } from '../services.ts';
import { createAuthenticator } from './auth.ts';
import { renderDocs } from './docs.ts';
import { registerErrorHandling, sendError } from './errors.ts';
import { createOriginGuard } from './guards.ts';
import { registerIdempotency } from './idempotency.ts';
import type { RateLimitConfig } from './rate-limit.ts';
import { createRateLimiter } from './rate-limit.ts';
import type { RegisterRoutes } from './types.ts';
import { withZod } from './types.ts';

/** Paths the API owns: unknown paths under them answer a JSON 404, never the UI. */
const API_PREFIXES = [
  '/api/',
  '/messages',
  '/conversations',
  '/campaigns',
  '/workflows',
  '/interactive-lists',
  '/v1/',
  '/events',
  '/webhooks',
  '/agents',
];

export interface AppOptions {
  services: Services;
  /** Per-launch secret the desktop UI authenticates with; null disables session auth. */
  sessionToken: string | null;
  /** Headless serve writes the session token into the served index.html (Electron uses its preload). */
  exposeSessionInPage: boolean;
  /** Built renderer (index.html + assets), or null to serve the API only. */
  rendererDir: string | null;
  rateLimit: RateLimitConfig;
  bodyLimit: number;
  extraHosts: string[];
  port: () => number | null;
  heartbeatMs: number;
  version: string;
  log: (message: string, error?: unknown) => void;
}

/** Builds the HTTP app. It never listens: server.ts does (tests use inject()). */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { services } = opts;
  const app = Fastify({
    logger: false,
    bodyLimit: opts.bodyLimit,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(validatorCompiler);
  // Handlers build their responses from typed rows; the schemas document them (openapi.json)
  // and the hot path skips re-validating every response.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  // Error `docs` links point at this server's own reference: http://127.0.0.1:PORT/docs#code.
  const baseUrl = (req: FastifyRequest) => {
    const port = opts.port();
    return port !== null ? `http://127.0.0.1:${port}` : `http://${req.headers.host ?? '127.0.0.1'}`;
  };
  registerErrorHandling(app, { baseUrl }, (e) => opts.log('unexpected error', e));

  // Only JSON (and CSV for imports): form and text posts from other sites get 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(
    ['text/csv', 'application/csv'],
    { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT },
    (_req, body, done) => done(null, body),
  );

  const guard = createOriginGuard({ port: opts.port, extraHosts: opts.extraHosts });
  app.addHook('onRequest', async (req) => guard(req));

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley API',
        version: opts.version,
        description:
          'The localhost API of Parley’s service core. Authenticate with `X-API-Key: svc_test_…` (test: simulated, never charges) or `svc_live_…`. Errors: `{ "error": { code, message, docs, param?, details? } }` — see /docs for every code.',
      },
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
  });

  const authenticate = createAuthenticator({
    keys: services.keys,
    workspaces: services.workspaces,
    sessionToken: opts.sessionToken,
    rateLimit: createRateLimiter(opts.rateLimit, services.clock),
  });

  await app.register(async (api) => {
    api.decorateRequest('principal', null as never);
    api.addHook('onRequest', async (req) => {
      req.principal = authenticate(req);
      const config = req.routeOptions.config;
      if (config.dashboardOnly && req.principal.kind !== 'session') {
        throw new ApiError(
          'forbidden',
          'This action is only available in the Parley app (Settings), not with an API key.',
        );
      }
      if (config.testOnly && req.principal.environment !== 'test') {
        throw new ApiError('forbidden', 'This route works with test keys only.');
      }
    });
    registerIdempotency(api, services.db, services.clock);
    const zapp = withZod(api);
    // Every feature registers its routes here, in one place.
    const features: RegisterRoutes[] = [
      systemRoutes,
      settingsRoutes,
      keysRoutes,
      walletRoutes,
      pricesRoutes,
      contactsRoutes,
      templatesRoutes,
      messagesRoutes,
      conversationsRoutes,
      simulatorRoutes,
      webhooksRoutes,
      eventsRoutes(opts.heartbeatMs),
    ];
    for (const register of features) register(zapp, services);
  });

  app.get(
    '/health',
    { schema: { tags: ['System'], summary: 'Liveness', hide: true } },
    async () => ({
      status: 'ok',
      version: opts.version,
    }),
  );
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  let docsHtml: string | null = null;
  app.get('/docs', { schema: { hide: true } }, async (_req, reply) => {
    docsHtml ??= renderDocs(app.swagger() as unknown as Parameters<typeof renderDocs>[0]);
    return reply.type('text/html; charset=utf-8').send(docsHtml);
  });

  const index = loadIndex(opts);
  if (opts.rendererDir && index) {
    await app.register(fastifyStatic, { root: opts.rendererDir, index: false, wildcard: false });
  }
  const sendIndex = (reply: FastifyReply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(index ?? UNBUILT_PAGE);
  app.get('/', { schema: { hide: true } }, async (_req, reply) => sendIndex(reply));

  app.setNotFoundHandler(async (req, reply) => {
    const isApi = API_PREFIXES.some((p) => req.url.startsWith(p));
    if (!isApi && req.method === 'GET' && String(req.headers.accept ?? '').includes('text/html')) {
      return sendIndex(reply);
    }
    sendError(
      reply,
      baseUrl(req),
      new ApiError('not_found', `No route ${req.method} ${req.url.split('?')[0]}`),
    );
  });

  return app;
}

const UNBUILT_PAGE = `<!doctype html><meta charset="utf-8"><title>Parley</title>
<p>The Parley UI is not built. Run <code>npm run build</code>, then reload. The API is up: see <a href="/docs">/docs</a>.</p>`;

function loadIndex(opts: AppOptions): string | null {
  if (!opts.rendererDir) return null;
  const file = path.join(opts.rendererDir, 'index.html');
  if (!fs.existsSync(file)) return null;
  let html = fs.readFileSync(file, 'utf8');
  if (opts.exposeSessionInPage && opts.sessionToken) {
    html = html.replace(
      '</head>',
      `<meta name="parley-session" content="${opts.sessionToken}"></head>`,
    );
  }
  return html;
}
