import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../../../shared/errors.ts';
import { CsvUpload } from '../modules/contacts/import.ts';
import { campaignsRoutes } from '../modules/campaigns/routes.ts';
import { emailRoutes } from '../modules/email/routes.ts';
import { channelRoutes, registerChannelWebhook } from '../modules/channel/routes.ts';
import { registerEmailPublicRoutes } from '../modules/email/public-routes.ts';
import { cannedRepliesRoutes } from '../modules/canned-replies/routes.ts';
import { interactiveListsRoutes } from '../modules/interactive-lists/routes.ts';
import { workflowsRoutes } from '../modules/workflows/routes.ts';
import { businessHoursRoutes } from '../modules/business-hours/routes.ts';
import { contactsRoutes } from '../modules/contacts/routes.ts';
import { exportsRoutes } from '../modules/exports/routes.ts';
import { conversationsRoutes } from '../modules/conversations/routes.ts';
import { eventsRoutes } from '../modules/events/routes.ts';
import { presenceRoutes } from '../modules/presence/routes.ts';
import { assignmentRoutes } from '../modules/assignment/routes.ts';
import { keysRoutes } from '../modules/keys/routes.ts';
import { auditRoutes } from '../modules/audit/routes.ts';
import { membersRoutes } from '../modules/members/routes.ts';
import type { TeamDesk } from '../modules/team/service.ts';
import { teamRoutes } from '../modules/team/routes.ts';
import { registerAuditTrail } from '../modules/audit/trail.ts';
import { messagesRoutes } from '../modules/messages/routes.ts';
import { mediaRoutes, registerMediaContent } from '../modules/media/routes.ts';
import { simulatorRoutes } from '../modules/simulator/routes.ts';
import { settingsRoutes, systemRoutes } from '../modules/system/routes.ts';
import { templatesRoutes } from '../modules/templates/routes.ts';
import { pricesRoutes, walletRoutes } from '../modules/wallet/routes.ts';
import { webhooksRoutes } from '../modules/webhooks/routes.ts';
import type { Services } from '../services.ts';
import type { Right, RouteRight } from '../../../shared/permissions.ts';
import { PUBLIC, RIGHTS } from '../../../shared/permissions.ts';
import { authorize, clientKey, createAuthenticator } from './auth.ts';
import { renderDocs } from './docs.ts';
import {
  clientErrorResponse,
  createMethodIndex,
  registerErrorHandling,
  sendError,
  toApiError,
} from './errors.ts';
import { createOriginGuard } from './guards.ts';
import { openapiOptions } from './openapi.ts';
import { registerIdempotency } from './idempotency.ts';
import type { RateLimitConfig } from './rate-limit.ts';
import {
  CHANNEL_WEBHOOK_RATE_LIMIT,
  createRateLimiter,
  MEDIA_LINK_RATE_LIMIT,
} from './rate-limit.ts';
import { registerSecurityHeaders } from './headers.ts';
import { registerLoginLink } from './session.ts';
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
  '/members',
  '/invites',
  '/sessions',
  '/logout',
  '/audit',
  '/canned-replies',
  '/channel/',
  '/media',
];

export interface AppOptions {
  services: Services;
  /** Per-launch secret the desktop UI sends as X-Parley-Session (Electron's preload hands it over). */
  sessionToken: string | null;
  /** The one-click sign-in link (`GET /login?token=…`) of headless serve is offered. */
  browserLogin: boolean;
  /** Changes on every start, so the UI can tell a restarted core (`GET /health`). */
  bootId: string;
  /** Built renderer (index.html + assets), or null to serve the API only. */
  rendererDir: string | null;
  rateLimit: RateLimitConfig;
  sessionRateLimit: RateLimitConfig;
  anonymousRateLimit: RateLimitConfig;
  bodyLimit: number;
  extraHosts: string[];
  port: () => number | null;
  /** The team desk: its TLS listener, certificate and invite origin (modules/team). */
  team: TeamDesk;
  heartbeatMs: number;
  version: string;
  log: (message: string, error?: unknown) => void;
}

/** Builds the HTTP app. It never listens: server.ts does (tests use inject()). */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { services } = opts;
  // Errors raised before a route runs (bad percent-encoding, broken HTTP framing, oversized
  // headers) and during shutdown answer in the same envelope as everything else.
  const app = Fastify({
    logger: false,
    bodyLimit: opts.bodyLimit,
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    frameworkErrors: (error, req, reply) =>
      sendError(
        reply,
        baseUrl(req),
        error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new ApiError(
              'validation_error',
              error.code === 'FST_ERR_BAD_URL'
                ? 'The URL is not valid percent-encoding'
                : 'A path segment is longer than 500 characters',
              { param: 'path' },
            )
          : toApiError(error),
      ),
    clientErrorHandler: (err, socket) => {
      if (socket.writable) {
        const port = opts.port();
        socket.end(clientErrorResponse(`http://127.0.0.1:${port ?? 4780}`, err));
      } else socket.destroy(err);
    },
  });
  const methods = createMethodIndex();
  // Every route and the right it declared (shared/permissions.ts), checked once all are in (a
  // plugin's own onRoute hook may set it after this one ran): the auth hook checks that right.
  const declared: { method: string; url: string; options: { config?: unknown } }[] = [];
  const routeRights: { method: string; url: string; right: RouteRight }[] = [];
  app.decorate('routeRights', routeRights);
  app.addHook('onRoute', (route) => {
    methods.add(route.method, route.url ?? route.path);
    for (const method of [route.method].flat()) {
      declared.push({ method, url: route.url ?? route.path, options: route });
    }
  });
  app.addHook('onReady', async () => {
    for (const d of declared) {
      const right = (d.options.config as { right?: unknown } | undefined)?.right;
      if (right !== PUBLIC && !RIGHTS.includes(right as Right)) {
        throw new Error(
          `${d.method} ${d.url}: a route declares the right it needs (config.right, shared/permissions.ts)`,
        );
      }
      routeRights.push({ method: d.method, url: d.url, right: right as RouteRight });
    }
  });
  app.setValidatorCompiler(validatorCompiler);
  // Handlers build their responses from typed rows; the schemas document them (openapi.json)
  // and the hot path skips re-validating every response.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  // Error `docs` links point at this server's own reference: http://127.0.0.1:PORT/docs#code.
  const baseUrl = (req: FastifyRequest) => {
    // Over the team desk's TLS listener, its own address (a teammate cannot open loopback).
    const shared = req.protocol === 'https' ? opts.team.inviteOrigin()?.baseUrl : undefined;
    if (shared) return shared;
    const port = opts.port();
    return port !== null ? `http://127.0.0.1:${port}` : `http://${req.headers.host ?? '127.0.0.1'}`;
  };
  registerErrorHandling(app, { baseUrl }, (e) => opts.log('unexpected error', e));

  // Only JSON (and CSV for imports): form and text posts from other sites get 415.
  app.removeContentTypeParser('text/plain');
  // A CSV body is not buffered: the import route reads the request stream as it arrives.
  app.addContentTypeParser(['text/csv', 'application/csv'], (_req, payload, done) =>
    done(null, new CsvUpload(payload)),
  );

  registerSecurityHeaders(app);
  const guard = createOriginGuard({
    port: opts.port,
    extraHosts: opts.extraHosts,
    tls: () => opts.team.tls(),
  });
  // An email's tracking and unsubscribe links are opened by its recipients, through whatever
  // name `publicUrl` gives this server: they carry no authority but their unguessable token.
  // So are Meta's webhook calls (signed with the app secret instead of a key).
  const isPublic = (url: string) => url.startsWith('/e/') || url.startsWith('/channel/webhook');
  app.addHook('onRequest', async (req) => {
    if (!isPublic(req.url)) guard(req);
  });
  await app.register(async (pub) => registerEmailPublicRoutes(pub, services.email, services.clock));
  // Meta posts from many addresses in bursts; a flood of forged posts from one is cut off.
  const webhookRateLimit = createRateLimiter(CHANNEL_WEBHOOK_RATE_LIMIT, services.clock, 'webhook');
  await app.register(async (pub) =>
    registerChannelWebhook(pub, services.channelWebhooks, (req) =>
      webhookRateLimit(clientKey(req)),
    ),
  );

  // The document's shape (errors, ids, security, headers, webhooks) lives in openapi.ts.
  await app.register(
    fastifySwagger,
    openapiOptions({
      version: opts.version,
      port: opts.port,
      browserSignIn: opts.browserLogin,
    }),
  );

  // A signed media link carries its own proof (the desktop window's <img> sends no header); a
  // thread loads many at once, so its bucket per client address is larger than the anonymous one.
  const mediaLinkRateLimit = createRateLimiter(MEDIA_LINK_RATE_LIMIT, services.clock, 'media-link');
  await app.register(async (pub) =>
    registerMediaContent(
      pub,
      services.media,
      (req) => mediaLinkRateLimit(clientKey(req)),
      services.clock.now,
    ),
  );

  const anonymousRateLimit = createRateLimiter(opts.anonymousRateLimit, services.clock, 'client');
  const authenticate = createAuthenticator({
    keys: services.keys,
    workspaces: services.workspaces,
    members: services.members,
    sessionToken: opts.sessionToken,
    rateLimit: createRateLimiter(opts.rateLimit, services.clock, 'api-key'),
    sessionRateLimit: createRateLimiter(opts.sessionRateLimit, services.clock, 'session'),
    anonymousRateLimit,
  });
  if (opts.browserLogin) {
    registerLoginLink(app, services.members, opts.port, (req) =>
      anonymousRateLimit(clientKey(req)),
    );
  }

  await app.register(async (api) => {
    api.decorateRequest('principal', null as never);
    api.addHook('onRequest', async (req) => {
      const right = req.routeOptions.config.right;
      // Sign-in and an invite's acceptance carry their own proof (a password, a token): they
      // are throttled per address like every request without a credential.
      if (right === PUBLIC) return anonymousRateLimit(clientKey(req));
      req.principal = authenticate(req);
      authorize(req.principal, right);
    });
    registerAuditTrail(api, services.audit);
    registerIdempotency(api, services.db, services.clock, services.owner, (m) => opts.log(m));
    const zapp = withZod(api);
    // Every feature registers its routes here, in one place.
    const features: RegisterRoutes[] = [
      systemRoutes,
      settingsRoutes,
      businessHoursRoutes,
      keysRoutes,
      membersRoutes(() => opts.team.inviteOrigin()),
      teamRoutes(opts.team),
      auditRoutes,
      walletRoutes,
      pricesRoutes,
      contactsRoutes,
      exportsRoutes,
      templatesRoutes,
      messagesRoutes,
      mediaRoutes,
      conversationsRoutes,
      presenceRoutes,
      assignmentRoutes,
      cannedRepliesRoutes,
      campaignsRoutes,
      emailRoutes,
      channelRoutes,
      interactiveListsRoutes,
      workflowsRoutes,
      simulatorRoutes,
      webhooksRoutes,
      eventsRoutes(opts.heartbeatMs),
    ];
    for (const register of features) register(zapp, services);
  });

  app.get(
    '/health',
    { config: { right: 'public' }, schema: { tags: ['System'], summary: 'Liveness', hide: true } },
    async () => ({
      status: 'ok',
      version: opts.version,
      bootId: opts.bootId,
    }),
  );
  app.get('/openapi.json', { config: { right: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
  let docsHtml: string | null = null;
  app.get('/docs', { config: { right: 'public' }, schema: { hide: true } }, async (_req, reply) => {
    docsHtml ??= renderDocs(app.swagger() as unknown as Parameters<typeof renderDocs>[0]);
    return reply.type('text/html; charset=utf-8').send(docsHtml);
  });

  const index = loadIndex(opts);
  const assets = opts.rendererDir ? path.join(opts.rendererDir, 'assets') : null;
  if (index && assets && fs.existsSync(assets)) {
    // Vite names every asset by its content hash: a changed file is a new URL, so a year of
    // immutable caching is safe. index.html, which names them, is never cached (below).
    await app.register(async (files) => {
      // The built UI's files are public: each route @fastify/static adds says so.
      files.addHook('onRoute', (route) => {
        route.config = { ...route.config, right: PUBLIC };
      });
      await files.register(fastifyStatic, {
        root: assets,
        prefix: '/assets/',
        index: false,
        wildcard: false,
        maxAge: 365 * 24 * 3600 * 1000,
        immutable: true,
      });
    });
  }
  const sendIndex = (reply: FastifyReply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(index ?? UNBUILT_PAGE);
  app.get('/', { config: { right: 'public' }, schema: { hide: true } }, async (_req, reply) =>
    sendIndex(reply),
  );

  app.setNotFoundHandler(async (req, reply) => {
    const isApi = API_PREFIXES.some((p) => req.url.startsWith(p));
    if (!isApi && req.method === 'GET' && String(req.headers.accept ?? '').includes('text/html')) {
      return sendIndex(reply);
    }
    const path = req.url.split('?')[0]!;
    const allow = methods.allowed(path);
    if (allow.length > 0) {
      return sendError(
        reply,
        baseUrl(req),
        new ApiError('method_not_allowed', `${path} takes ${allow.join(', ')}, not ${req.method}`, {
          headers: { allow: allow.join(', ') },
        }),
      );
    }
    sendError(reply, baseUrl(req), new ApiError('not_found', `No route ${req.method} ${path}`));
  });

  return app;
}

const UNBUILT_PAGE = `<!doctype html><meta charset="utf-8"><title>Parley</title>
<p>The Parley UI is not built. Run <code>npm run build</code>, then reload. The API is up: see <a href="/docs">/docs</a>.</p>`;

/** The built index.html as is: it never carries a credential (the UI signs in with a cookie). */
function loadIndex(opts: AppOptions): string | null {
  if (!opts.rendererDir) return null;
  const file = path.join(opts.rendererDir, 'index.html');
  if (!fs.existsSync(file)) return null;
  return fs.readFileSync(file, 'utf8');
}
