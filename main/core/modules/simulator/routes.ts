import { ApiError } from '../../../../shared/errors.ts';
import { idParams } from '../../../../shared/schemas/common.ts';
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
const config = { testOnly: true };

export const simulatorRoutes: RegisterRoutes = (app, { messages, templates, simulator, clock }) => {
  app.post(
    '/api/simulator/inbound',
    {
      config,
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
      return messages.receive(req.principal, {
        phone: phoneOrThrow(b.phone),
        text: b.message ?? `[list reply ${b.listReply!.listId}/${b.listReply!.rowId}]`,
        type: b.listReply ? 'list' : 'text',
        receivedAt,
      });
    },
  );

  app.post(
    '/api/simulator/templates/:id/review',
    {
      config: { ...config, docs: { errors: ['invalid_state'] } },
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
      config,
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
      config,
      schema: {
        operationId: 'updateSimulatorSettings',
        tags,
        summary: 'Change any subset of the simulator’s settings',
        body: simulatorSettingsPatch,
        response: { 200: simulatorSettingsSchema },
      },
    },
    async (req) => simulator.update(req.principal.workspaceId, req.body),
  );
};
