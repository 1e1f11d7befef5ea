import { z } from 'zod';
import { idParams, page, pageQuery } from '../../../../shared/schemas/common.ts';
import {
  createdWebhookSchema,
  createWebhookBody,
  deliverySchema,
  webhookSchema,
} from '../../../../shared/schemas/webhooks.ts';
import type { RegisterRoutes } from '../../http/types.ts';

const tags = ['Webhooks'];

export const webhooksRoutes: RegisterRoutes = (app, { webhooks }) => {
  app.post(
    '/webhooks',
    {
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

  app.get(
    '/webhooks/:id/deliveries',
    {
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
