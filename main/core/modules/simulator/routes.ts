import { ApiError } from '../../../../shared/errors.ts';
import { idParams } from '../../../../shared/schemas/common.ts';
import type { ListReply } from '../../../../shared/schemas/interactive-lists.ts';
import { messageSchema } from '../../../../shared/schemas/messages.ts';
import {
  inboundBody,
  reviewBody,
  simulatorSettingsPatch,
  simulatorSettingsSchema,
} from '../../../../shared/schemas/simulator.ts';
import { templateSchema } from '../../../../shared/schemas/templates.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import { phoneOrThrow } from '../contacts/service.ts';

const tags = ['Simulator (test keys)'];

export const simulatorRoutes: RegisterRoutes = (
  app,
  { messages, templates, simulator, clock, interactiveLists, campaigns },
) => {
  app.post(
    '/api/simulator/inbound',
    {
      config: { right: 'simulator', docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'simulateInbound',
        tags,
        summary: 'An end user writes in (opens or extends the 24-hour window)',
        body: inboundBody,
        response: { 200: messageSchema },
      },
    },
    (req) => {
      const b = req.body;
      if (!b.message && !b.listReply) {
        throw new ApiError('validation_error', 'give message or listReply', { param: 'message' });
      }
      const receivedAt = b.receivedAt ? Date.parse(b.receivedAt) : clock.now();
      if (receivedAt > clock.now() + 60_000) {
        throw new ApiError('validation_error', 'receivedAt cannot be in the future', {
          param: 'receivedAt',
        });
      }
      // A pick names a row of a saved list; it arrives with the row's title, as on a phone.
      let listReply: ListReply | undefined;
      if (b.listReply) {
        const list = interactiveLists.find(req.principal, b.listReply.listId, 'listReply.listId');
        const row = list.sections.flatMap((s) => s.rows).find((r) => r.id === b.listReply!.rowId);
        if (!row) {
          throw new ApiError(
            'validation_error',
            `list ${list.id} has no row "${b.listReply.rowId}"`,
            { param: 'listReply.rowId' },
          );
        }
        listReply = { listId: list.id, rowId: row.id, title: row.title };
      }
      return messages.receive(req.principal, {
        phone: phoneOrThrow(b.phone),
        text: b.message ?? listReply!.title,
        type: listReply ? 'list' : 'text',
        receivedAt,
        ...(listReply ? { listReply } : {}),
      })!; // no channel id: never a duplicate
    },
  );

  app.post(
    '/api/simulator/templates/:id/review',
    {
      config: { right: 'simulator', docs: { errors: ['invalid_state'] } },
      schema: {
        operationId: 'reviewTemplate',
        tags,
        summary: 'Force the provider’s decision on a template',
        params: idParams,
        body: reviewBody,
        response: { 200: templateSchema },
      },
    },
    (req) => templates.decide(req.principal, req.params.id, req.body.decision, req.body.reason),
  );

  app.get(
    '/api/simulator/settings',
    {
      config: { right: 'simulator' },
      schema: {
        operationId: 'getSimulatorSettings',
        tags,
        summary: 'The simulated provider’s settings',
        response: { 200: simulatorSettingsSchema },
      },
    },
    async (req) => simulator.get(req.principal.workspaceId),
  );

  app.put(
    '/api/simulator/settings',
    {
      config: { right: 'simulator' },
      schema: {
        operationId: 'updateSimulatorSettings',
        tags,
        summary: 'Change any subset of the simulator’s settings',
        body: simulatorSettingsPatch,
        response: { 200: simulatorSettingsSchema },
      },
    },
    async (req) => {
      const settings = simulator.update(req.principal.workspaceId, req.body);
      // New limits: campaigns the governor held look again now.
      if (req.body.messagingTier !== undefined || req.body.throughputMps !== undefined) {
        campaigns.limitsChanged(req.principal.workspaceId);
      }
      return settings;
    },
  );
};
