import { z } from 'zod';
import { idParams, page, pageQuery } from '../../../../shared/schemas/common.ts';
import {
  createdWebhookSchema,
  createWebhookBody,
  deliverySchema,
  webhookSchema,
} from '../../../../shared/schemas/webhooks.ts';
import type { OperationDocs } from '../../http/openapi.ts';
import type { RegisterRoutes } from '../../http/types.ts';

const tags = ['Webhooks'];

const deliveryParams = z.object({
  id: z.string().min(1).max(100),
  deliveryId: z.string().min(1).max(100),
});

const deliveryExample = {
  id: 'whd_9Xq2Lm4Rt7',
  eventId: 'evt_7Rk2pX9mQa',
  eventType: 'message.received',
  status: 'pending',
  attempts: 0,
  lastStatusCode: null,
  lastError: null,
  nextAttemptAt: '2026-01-05T10:00:00.000Z',
  createdAt: '2026-01-05T10:00:00.000Z',
  deliveredAt: null,
};

const REDELIVER_DOCS: OperationDocs = {
  errors: ['not_found', 'invalid_state'],
  responseExample: deliveryExample,
};

export const webhooksRoutes: RegisterRoutes = (app, { webhooks }) => {
  app.post(
    '/webhooks',
    {
      config: { right: 'webhooks' },
      schema: {
        operationId: 'createWebhook',
        tags,
        summary: 'Register a webhook; the signing secret is shown once',
        description:
          'Each delivery is a POST of the event envelope with `X-Parley-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + body)>` and `X-Parley-Event-Id`, plus the Standard Webhooks headers `webhook-id` (the event id), `webhook-timestamp` and `webhook-signature` (verifiable with any standardwebhooks library and the same `whsec_` secret). Non-2xx answers are retried with exponential backoff and jitter for up to 3 days; redirects are not followed; dedupe by event id. URLs on loopback, private, link-local or other non-public addresses (including IPv4-mapped, NAT64 and 6to4 forms) are refused unless the workspace allows them, when saved and again at each delivery against the address actually connected to.',
        body: createWebhookBody,
        response: { 201: createdWebhookSchema },
      },
    },
    async (req, reply) => {
      await webhooks.checkTarget(req.principal, req.body);
      reply.code(201);
      // The insert and its Idempotency-Key response commit together.
      return app.commitWithResponse(req, reply, () => webhooks.create(req.principal, req.body));
    },
  );

  app.get(
    '/webhooks',
    {
      config: { right: 'webhooks' },
      schema: {
        operationId: 'listWebhooks',
        tags,
        summary: 'List webhooks',
        querystring: pageQuery,
        response: { 200: page(webhookSchema) },
      },
    },
    async (req) => webhooks.list(req.principal, req.query.limit, req.query.cursor),
  );

  app.delete(
    '/webhooks/:id',
    {
      config: { right: 'webhooks' },
      schema: {
        operationId: 'deleteWebhook',
        tags,
        summary: 'Delete a webhook (pending deliveries stop)',
        params: idParams,
        response: { 200: z.object({ success: z.literal(true), id: z.string() }) },
      },
    },
    async (req) => webhooks.remove(req.principal, req.params.id),
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      config: { right: 'webhooks', docs: REDELIVER_DOCS },
      schema: {
        operationId: 'redeliverWebhookDelivery',
        tags,
        summary: 'Send a delivery’s event to the webhook again',
        description:
          'Makes a new delivery of the same event (the same `webhook-id` and `X-Parley-Event-Id`, so receivers dedupe it), sent at once and retried like any other for up to 3 days from now; the earlier delivery stays in the log as it ended. A delivery whose job died (its process kept being killed while sending it) ends `failed` with the reason, and this is how it is sent again. A delivery still `pending` is retried by itself: 409 `invalid_state`. Another workspace’s or environment’s webhook or delivery: 404 `not_found`.',
        params: deliveryParams,
        response: { 201: deliverySchema },
      },
    },
    async (req, reply) => {
      reply.code(201);
      return webhooks.redeliver(req.principal, req.params.id, req.params.deliveryId);
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: { right: 'webhooks' },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'The delivery log of a webhook, newest first',
        params: idParams,
        querystring: pageQuery,
        response: { 200: page(deliverySchema) },
      },
    },
    async (req) =>
      webhooks.deliveries(req.principal, req.params.id, req.query.limit, req.query.cursor),
  );
};
