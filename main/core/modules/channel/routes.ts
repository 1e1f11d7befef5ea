import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../../../shared/errors.ts';
import {
  channelSettingsBody,
  channelSettingsSchema,
  webhookRejectSchema,
} from '../../../../shared/schemas/channel.ts';
import { page, pageQuery } from '../../../../shared/schemas/common.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import type { ChannelWebhook } from './webhook.ts';

const tags = ['Channel'];

const example = {
  provider: 'cloud_api',
  connected: true,
  phoneNumberId: '106540352242922',
  wabaId: '102290129340398',
  accessTokenSet: true,
  appSecretSet: true,
  verifyToken: 'Jx4k9Qm2Rt7Vw1Zy5Ab8Cd3Ef6Gh0Ij',
  graphBaseUrl: 'https://graph.facebook.com/v21.0',
  webhookPath: '/channel/webhook',
  number: {
    displayPhoneNumber: '+1 555-010-0199',
    verifiedName: 'Acme Shop',
    qualityRating: 'GREEN',
    messagingTier: 1000,
    throughputMps: 80,
  },
  lastCheck: {
    at: '2026-12-01T09:00:00.000Z',
    ok: true,
    outcome: 'connected',
    message: 'Connected: Acme Shop (+1 555-010-0199), quality GREEN',
  },
  phoneNumberProved: true,
  environment: 'live',
  updatedAt: '2026-12-01T09:00:00.000Z',
};

const LIVE_ONLY =
  'Live keys only (and the app in live mode): test keys always use the simulated channel and answer 403.';
const ADMIN_ONLY =
  'The desk’s admin session only (the app in live mode): these settings aim the core at a host, so no API key may change them (403 `forbidden`).';

export const channelRoutes: RegisterRoutes = (app, { channels, channelWebhooks }) => {
  app.get(
    '/api/channel',
    {
      config: { right: 'channel.read', docs: { errors: ['forbidden'], responseExample: example } },
      schema: {
        operationId: 'getChannel',
        tags,
        summary: 'The live channel: simulated, or connected to the WhatsApp Cloud API',
        description: `${LIVE_ONLY} Secrets are never shown, only whether they are set.`,
        response: { 200: channelSettingsSchema },
      },
    },
    async (req) => channels.get(req.principal),
  );

  app.put(
    '/api/channel',
    {
      config: {
        right: 'channel.manage',
        docs: {
          errors: ['forbidden'],
          requestExample: {
            provider: 'cloud_api',
            phoneNumberId: '106540352242922',
            wabaId: '102290129340398',
            accessToken: 'EAAGm0PX4ZCpsBAKZBZCxyz…',
            appSecret: '3f1c2b9a8d7e6f50',
          },
          responseExample: example,
        },
      },
      schema: {
        operationId: 'updateChannel',
        tags,
        summary: 'Connect the Cloud API (or go back to the simulator)',
        description: `${ADMIN_ONLY} Fields left out keep their values; \`accessToken\` and \`appSecret\` are write-only. With \`provider: "cloud_api"\`, phone number id, WABA id, access token and app secret are required (400 naming the missing one). A new connection is checked at once (as \`POST /api/channel/check\` does).`,
        body: channelSettingsBody,
        response: { 200: channelSettingsSchema },
      },
    },
    async (req) => {
      const saved = await channels.put(req.principal, req.body);
      // Connecting reads the number's tier and throughput at once (they pace live sends).
      return saved.connected && saved.lastCheck === null ? channels.check(req.principal) : saved;
    },
  );

  app.post(
    '/api/channel/check',
    {
      config: {
        right: 'channel.manage',
        docs: { errors: ['forbidden', 'invalid_state'], responseExample: example },
      },
      schema: {
        operationId: 'checkChannel',
        tags,
        summary: 'Check the connection: ask Meta about the phone number',
        description: `${ADMIN_ONLY} Calls the phone number endpoint through the outbound policy (no redirects; private hosts only where the workspace allows them); \`lastCheck.outcome\` classifies the result (\`connected\`, \`auth_failed\`, \`tls_failed\`, \`unreachable\`, \`not_graph\`) and \`lastCheck.message\` says it in plain words, quoting the answer only when the host is Meta's. On success the number's messaging tier and throughput become the governor's limits for live sends.`,
        response: { 200: channelSettingsSchema },
      },
    },
    async (req) => channels.check(req.principal),
  );

  app.get(
    '/api/channel/rejects',
    {
      config: {
        right: 'channel.read',
        docs: {
          errors: ['forbidden'],
          responseExample: {
            data: [
              {
                id: 'whr_01JD…',
                kind: 'message',
                reason: 'the message names neither a phone ("from") nor a user id ("from_user_id")',
                raw: '{"id":"wamid.HBgL…","timestamp":"1733050000","type":"text","text":{"body":"hi"}}',
                receivedAt: '2026-12-01T09:00:00.000Z',
              },
            ],
            nextCursor: null,
          },
        },
      },
      schema: {
        operationId: 'listChannelRejects',
        tags,
        summary: 'Webhook items the channel could not read',
        description: `${LIVE_ONLY} One bad item never sinks a delivery: each message and status of Meta's webhook commits on its own, and one that cannot be read is kept here with its raw JSON and the reason, newest first.`,
        querystring: pageQuery,
        response: { 200: page(webhookRejectSchema) },
      },
    },
    async (req) =>
      channelWebhooks.rejects(req.principal, req.query.limit, req.query.cursor ?? null),
  );
};

/**
 * The shape every delivery must have before its items are read (each item is checked on its
 * own): an object whose `entry`, if any, is an array. A plain check, not a schema built and
 * run per delivery: it is on the path of every message Meta sends.
 */
const isEnvelope = (body: unknown): body is Parameters<ChannelWebhook['handle']>[0] =>
  typeof body === 'object' &&
  body !== null &&
  !Array.isArray(body) &&
  ((body as { entry?: unknown }).entry === undefined ||
    Array.isArray((body as { entry?: unknown }).entry));

/**
 * Meta calls these without an API key, through whatever public address reaches this desk: the
 * verification handshake and signed deliveries. The signature is checked over the raw bytes, so
 * the body is kept as it arrived.
 */
export function registerChannelWebhook(
  app: FastifyInstance,
  webhook: ChannelWebhook,
  /** Per client address: Meta's bursts fit, a flood of forged posts does not. */
  limit: (req: FastifyRequest) => void,
) {
  app.addHook('onRequest', async (req) => limit(req));
  app.addContentTypeParser(
    ['application/json', 'application/json; charset=utf-8'],
    { parseAs: 'buffer', bodyLimit: 3 * 1024 * 1024 },
    (_req, body, done) => done(null, body),
  );

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/channel/webhook',
    { config: { right: 'public' }, schema: { hide: true } },
    async (req, reply) => {
      const challenge = webhook.verify(
        req.query['hub.mode'],
        req.query['hub.verify_token'],
        req.query['hub.challenge'],
      );
      if (challenge === null) {
        throw new ApiError('forbidden', 'hub.verify_token does not match the channel settings');
      }
      return reply.type('text/plain; charset=utf-8').send(challenge);
    },
  );

  app.post(
    '/channel/webhook',
    { config: { right: 'public' }, schema: { hide: true } },
    async (req) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const header = req.headers['x-hub-signature-256'];
      const secret = webhook.signedBy(raw, Array.isArray(header) ? header[0] : header);
      if (!secret) {
        throw new ApiError(
          'invalid_signature',
          'X-Hub-Signature-256 is missing or does not match a connected app secret',
        );
      }
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new ApiError('invalid_json');
      }
      if (!isEnvelope(body)) throw new ApiError('validation_error', 'not a webhook envelope');
      return webhook.handle(body, secret);
    },
  );
}
