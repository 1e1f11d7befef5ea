/**
 * The audit trail of plain API changes (README "Security"): one table of the routes whose success
 * is an audited action, appended right after the change answers 2xx. Members, invites and
 * sessions write their own entries inside the transaction of the change (members/service.ts);
 * everything else is here, so a new admin route is audited by adding a row, not a call.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actorOf } from '../members/routes.ts';
import type { AuditService } from './service.ts';

interface Entry {
  action: string | ((req: FastifyRequest) => string | null);
  target: string;
  /** The target's id: the `:id` path parameter, else the body's `id`, else the answer's `id`. */
  details?: (req: FastifyRequest) => Record<string, unknown>;
}

const body = (req: FastifyRequest): Record<string, unknown> =>
  req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
/** Which settings changed, never their values (secrets among them). */
const fields = (req: FastifyRequest) => ({ fields: Object.keys(body(req)).sort() });

/** "METHOD /route/:pattern" → what its success is, in the audit trail. */
export const AUDITED_ROUTES: Readonly<Record<string, Entry>> = {
  'POST /api/keys': {
    action: 'api_key.created',
    target: 'api_key',
    details: (req) => ({ environment: body(req).environment }),
  },
  'DELETE /api/keys/:id': { action: 'api_key.revoked', target: 'api_key' },
  'POST /api/wallet/topup': {
    action: 'wallet.topped_up',
    target: 'wallet',
    details: (req) => ({ amountMicros: body(req).amountMicros ?? body(req).amount }),
  },
  'PUT /api/wallet/prices': { action: 'prices.updated', target: 'prices', details: fields },
  'PATCH /api/workspace/settings': {
    action: 'settings.updated',
    target: 'workspace',
    details: fields,
  },
  'PUT /api/channel': { action: 'settings.updated', target: 'channel', details: fields },
  'PUT /v1/email/settings': { action: 'settings.updated', target: 'email', details: fields },
  'PUT /api/simulator/settings': {
    action: 'settings.updated',
    target: 'simulator',
    details: fields,
  },
  'POST /campaigns/launch': { action: 'campaign.launched', target: 'campaign' },
  'POST /campaigns/pause': { action: 'campaign.paused', target: 'campaign' },
  'POST /campaigns/cancel': { action: 'campaign.cancelled', target: 'campaign' },
  'POST /v1/email/campaigns/:id/launch': {
    action: 'email_campaign.launched',
    target: 'email_campaign',
  },
  'POST /v1/email/campaigns/:id/pause': {
    action: 'email_campaign.paused',
    target: 'email_campaign',
  },
  'POST /v1/email/campaigns/:id/cancel': {
    action: 'email_campaign.cancelled',
    target: 'email_campaign',
  },
  'PATCH /workflows/:id': {
    action: (req) => (body(req).status === 'active' ? 'workflow.activated' : 'workflow.paused'),
    target: 'workflow',
  },
  'POST /webhooks': { action: 'webhook.created', target: 'webhook' },
  'PATCH /webhooks/:id': {
    action: (req) =>
      body(req).enabled === false
        ? 'webhook.disabled'
        : body(req).enabled === true
          ? 'webhook.enabled'
          : 'webhook.updated',
    target: 'webhook',
    details: fields,
  },
  'DELETE /webhooks/:id': { action: 'webhook.deleted', target: 'webhook' },
  'POST /webhooks/:id/deliveries/:deliveryId/redeliver': {
    action: 'webhook.redelivered',
    target: 'webhook',
    details: (req) => ({ deliveryId: (req.params as { deliveryId?: string }).deliveryId }),
  },
  'DELETE /api/templates/:id': { action: 'template.deleted', target: 'template' },
  'DELETE /canned-replies/:id': { action: 'canned_reply.deleted', target: 'canned_reply' },
  'DELETE /interactive-lists': { action: 'list.deleted', target: 'interactive_list' },
};

function idOf(req: FastifyRequest, payload: unknown): string | null {
  const params = req.params as Record<string, unknown> | undefined;
  if (typeof params?.id === 'string') return params.id;
  const query = req.query as Record<string, unknown> | undefined;
  const fromRequest = body(req).id ?? query?.id;
  if (typeof fromRequest === 'string') return fromRequest;
  if (typeof payload === 'string' && payload.startsWith('{')) {
    try {
      const answer = JSON.parse(payload) as Record<string, unknown>;
      const id = answer.id ?? (answer.key as Record<string, unknown> | undefined)?.id;
      return typeof id === 'string' ? id : null;
    } catch {
      return null;
    }
  }
  return null;
}

export function registerAuditTrail(app: FastifyInstance, audit: AuditService): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode >= 400 || !req.principal) return payload;
    const entry = AUDITED_ROUTES[`${req.method} ${req.routeOptions.url}`];
    if (!entry) return payload;
    const action = typeof entry.action === 'function' ? entry.action(req) : entry.action;
    if (action === null) return payload;
    audit.append({
      workspaceId: req.principal.workspaceId,
      actor: actorOf(req.principal),
      action,
      target: { type: entry.target, id: idOf(req, payload) },
      address: req.ip,
      details: {
        ...(req.principal.environment ? { environment: req.principal.environment } : {}),
        ...(entry.details?.(req) ?? {}),
      },
    });
    return payload;
  });
}
