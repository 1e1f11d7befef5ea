import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../../../shared/errors.ts';
import { idParams } from '../../../../shared/schemas/common.ts';
import {
  presenceListSchema,
  presenceReportBody,
  presenceReportSchema,
  viewersSchema,
} from '../../../../shared/schemas/together.ts';
import type { Principal } from '../../http/auth.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import type { PresenceClient } from './service.ts';

const tags = ['Working together'];

/** The signed-in member's client a request or stream comes from; null for an API key. */
export const presenceClient = (p: Principal): PresenceClient | null =>
  p.kind === 'session' && p.member !== null
    ? {
        workspaceId: p.workspaceId,
        memberId: p.member.id,
        name: p.member.name,
        clientId: p.sessionId ?? 'desktop',
      }
    : null;

/** An API key is a script, not a person at a desk: it has no presence (403). */
function presenceClientOf(req: FastifyRequest): PresenceClient {
  const who = presenceClient(req.principal);
  if (!who) {
    throw new ApiError(
      'forbidden',
      'Presence, viewing and typing are a signed-in member’s: an API key has none.',
    );
  }
  return who;
}

const SIGNAL_DESCRIPTION =
  'Send at most every 3 s while it lasts; repeats within 3 s are dropped (still 204). The other members’ streams in this workspace and environment get it as an ephemeral event (never the caller’s own, never stored, never a webhook); receivers forget it 6 s after it came. Signed-in members only: an API key answers 403.';

export const presenceRoutes: RegisterRoutes = (app, { presence, conversations }) => {
  app.post(
    '/api/presence',
    {
      config: {
        right: 'inbox',
        docs: {
          requestExample: { state: 'active' },
          responseExample: { memberId: 'mem_1', status: 'online' },
        },
      },
      schema: {
        operationId: 'reportPresence',
        tags,
        summary: 'Report the signed-in member’s activity (active / idle)',
        description:
          'Presence is `online` while a client of the member has the event stream open and had input in the last 5 minutes, `away` while streams are open without input (or the client said `idle`), `offline` with no stream open. Every change is published as `presence.updated {memberId, status}`. Kept in memory, never stored. Signed-in members only: an API key answers 403.',
        body: presenceReportBody,
        response: { 200: presenceReportSchema },
      },
    },
    (req) => {
      const who = presenceClientOf(req);
      return { memberId: who.memberId, status: presence.report(who, req.body.state) };
    },
  );

  app.get(
    '/api/presence',
    {
      config: { right: 'inbox' },
      schema: {
        operationId: 'listPresence',
        tags,
        summary: 'Every active member’s presence (online / away / offline)',
        description:
          'For the assignee picker’s dots and the team view; follow changes with `presence.updated` on the event stream.',
        response: { 200: presenceListSchema },
      },
    },
    async (req) => ({ data: presence.list(req.principal.workspaceId), nextCursor: null }),
  );

  for (const kind of ['viewing', 'typing'] as const) {
    app.post(
      `/conversations/:id/${kind}`,
      {
        config: { right: 'inbox' },
        schema: {
          operationId: kind === 'viewing' ? 'signalViewing' : 'signalTyping',
          tags,
          summary:
            kind === 'viewing'
              ? 'Say the signed-in member is viewing the conversation (`conversation.viewing`)'
              : 'Say the signed-in member is typing in the conversation (`conversation.typing`)',
          description: SIGNAL_DESCRIPTION,
          params: idParams,
          response: { 204: z.null() },
        },
      },
      (req, reply) => {
        const who = presenceClientOf(req);
        conversations.find(req.principal, req.params.id);
        presence[kind](req.principal, who, req.params.id);
        reply.code(204);
        return null;
      },
    );
  }

  app.get(
    '/conversations/:id/viewers',
    {
      config: { right: 'inbox' },
      schema: {
        operationId: 'listViewers',
        tags,
        summary: 'Who else is viewing the conversation now (signals of the last 6 s)',
        description:
          'For a page just opened, before the stream brings `conversation.viewing`. The caller is left out.',
        params: idParams,
        response: { 200: viewersSchema },
      },
    },
    async (req) => {
      conversations.find(req.principal, req.params.id);
      return {
        data: presence.viewers(req.params.id, req.principal.member?.id ?? null),
        nextCursor: null,
      };
    },
  );
};
