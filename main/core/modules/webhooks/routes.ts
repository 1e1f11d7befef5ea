import { z } from 'zod';
import { idParams, page, pageQuery } from '../../../../shared/schemas/common.ts';
import {
  createdWebhookSchema,
  createWebhookBody,
  deliveriesQuery,
  deliverySchema,
  updateWebhookBody,
  webhookSchema,
} from '../../../../shared/schemas/webhooks.ts';
import { storedWithout } from '../../http/idempotency.ts';
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
  lastAttemptAt: null,
  responseExcerpt: null,
  responseTruncated: false,
  nextAttemptAt: '2026-01-05T10:00:00.000Z',
  createdAt: '2026-01-05T10:00:00.000Z',
  deliveredAt: null,
};

const REDELIVER_DOCS: OperationDocs = {
  errors: ['not_found', 'invalid_state'],
  responseExample: deliveryExample,
};

const webhookExample = {
  id: 'wh_3Vd8Kq1Zp2',
  url: 'https://crm.example.com/hooks/parley',
  events: ['message.received', 'conversation.updated'],
  description: 'CRM sync',
  enabled: false,
  createdAt: '2026-01-05T09:00:00.000Z',
  lastDelivery: {
    id: 'whd_9Xq2Lm4Rt7',
    eventType: 'message.received',
    status: 'failed',
    lastStatusCode: 500,
    createdAt: '2026-01-05T10:00:00.000Z',
    lastAttemptAt: '2026-01-05T10:00:00.000Z',
  },
};

const UPDATE_DOCS: OperationDocs = {
  errors: ['not_found'],
  requestExample: { enabled: false },
  responseExample: webhookExample,
};

const DELIVERIES_DOCS: OperationDocs = {
  errors: ['not_found'],
  responseExample: {
    data: [
      {
        ...deliveryExample,
        status: 'pending',
        attempts: 2,
        lastStatusCode: 500,
        lastError: 'the receiver answered HTTP 500',
        lastAttemptAt: '2026-01-05T10:00:30.000Z',
        responseExcerpt: '{"error":"database is down"}',
        nextAttemptAt: '2026-01-05T10:01:00.000Z',
      },
    ],
    nextCursor: null,
  },
};

export const webhooksRoutes: RegisterRoutes = (app, { webhooks }) => {
  app.post(
    '/webhooks',
    {
      // The signing secret is shown once (design.md §6): a replay answers 409 with the record.
      config: { right: 'webhooks', secretAnswer: storedWithout('secret') },
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
        summary: 'List webhooks, each with its newest delivery',
        querystring: pageQuery,
        response: { 200: page(webhookSchema) },
      },
    },
    async (req) => webhooks.list(req.principal, req.query.limit, req.query.cursor),
  );

  app.get(
    '/webhooks/:id',
    {
      config: {
        right: 'webhooks',
        docs: { errors: ['not_found'], responseExample: webhookExample },
      },
      schema: {
        operationId: 'getWebhook',
        tags,
        summary: 'A webhook, with its newest delivery',
        params: idParams,
        response: { 200: webhookSchema },
      },
    },
    async (req) => webhooks.get(req.principal, req.params.id),
  );

  app.patch(
    '/webhooks/:id',
    {
      config: { right: 'webhooks', docs: UPDATE_DOCS },
      schema: {
        operationId: 'updateWebhook',
        tags,
        summary: 'Enable or disable a webhook, or change its events, URL or description',
        description:
          'Fields left out keep their values. `enabled: false` stops new deliveries, and the deliveries still pending end `failed` ("the webhook was disabled …"): redeliver them once it is enabled again. `events: null` delivers every event type. A new `url` is checked against the outbound address policy as on create (a private or loopback target needs the workspace to allow it); pending retries go to it at their next try. The signing secret never changes and is not returned.',
        params: idParams,
        body: updateWebhookBody,
        response: { 200: webhookSchema },
      },
    },
    async (req) => {
      if (req.body.url !== undefined)
        await webhooks.checkTarget(req.principal, { url: req.body.url });
      return webhooks.update(req.principal, req.params.id, req.body);
    },
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
          'Sends the delivery’s event again now, signed the same way (the same `webhook-id` and `X-Parley-Event-Id`, so receivers dedupe it). A delivery that ended (`succeeded`, or `failed`: it gave up after 3 days, its webhook was disabled, or its job died) gets a **new** delivery, 201, sent at once and retried like any other for up to 3 days from now; the earlier one stays in the log as it ended. A delivery still `pending` (waiting for its next try), or an ended one whose event another delivery is still carrying to this webhook, is tried now instead of waiting: 200 with that delivery, so the receiver is not sent the event twice. 409 `invalid_state`: an attempt of it is under way right now (`details.pendingDeliveryId`), or the webhook is disabled. Another workspace’s or environment’s webhook or delivery: 404 `not_found`. Audited (`webhook.redelivered`).',
        params: deliveryParams,
        response: { 200: deliverySchema, 201: deliverySchema },
      },
    },
    async (req, reply) => {
      const { delivery, created } = webhooks.redeliver(
        req.principal,
        req.params.id,
        req.params.deliveryId,
      );
      reply.code(created ? 201 : 200);
      return delivery;
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: { right: 'webhooks', docs: DELIVERIES_DOCS },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'The delivery log of a webhook, newest first',
        description:
          'Each delivery: its event, `status` (`pending`, `succeeded`, `failed`), attempts, the last attempt’s time, HTTP status, error in words and the first 1 KiB of the answer’s body, and the next try while pending. `?status=` keeps one status. Kept 30 days after they end.',
        params: idParams,
        querystring: deliveriesQuery,
        response: { 200: page(deliverySchema) },
      },
    },
    async (req) => webhooks.deliveries(req.principal, req.params.id, req.query),
  );
};
