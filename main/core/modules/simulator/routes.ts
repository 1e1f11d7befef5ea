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
  { messages, templates, simulator, clock, interactiveLists, campaigns, media },
) => {
  app.post(
    '/api/simulator/inbound',
    {
      config: { right: 'simulator', docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'simulateInbound',
        tags,
        summary: 'An end user writes in (opens or extends the 24-hour window)',
        description:
          'One of: `message` (text), `listReply`, `media {type: image|audio|video|document|sticker, caption?, fileName?}` (one of the bundled sample files, fetched by the same job as a real channel’s: `message.media_ready` follows), `location {latitude, longitude, name?, address?}`, `contacts [{name, phones, emails?, organization?}]`. `replyToMessageId` makes it quote one of the conversation’s messages.',
        body: inboundBody,
        response: { 200: messageSchema },
      },
    },
    (req) => {
      const b = req.body;
      const given = (['message', 'listReply', 'media', 'location', 'contacts'] as const).filter(
        (k) => b[k] !== undefined,
      );
      // A caption rides with its media (as `media.caption`); otherwise exactly one kind.
      if (given.length !== 1) {
        throw new ApiError(
          'validation_error',
          'give exactly one of message, listReply, media, location or contacts',
          { param: given[1] ?? 'message' },
        );
      }
      if (b.media?.caption && (b.media.type === 'audio' || b.media.type === 'sticker')) {
        throw new ApiError('validation_error', `a ${b.media.type} has no caption on WhatsApp`, {
          param: 'media.caption',
        });
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
      // A quote names one of the scope's messages the customer could see (not a note).
      let context: { messageId: string; channelMessageId: string | null } | undefined;
      if (b.replyToMessageId) {
        const quoted = messages.byId(b.replyToMessageId);
        if (
          !quoted ||
          quoted.workspace_id !== req.principal.workspaceId ||
          quoted.environment !== req.principal.environment ||
          quoted.type === 'note'
        ) {
          throw new ApiError(
            'validation_error',
            'replyToMessageId names no message of this scope the customer could quote',
            { param: 'replyToMessageId' },
          );
        }
        context = { messageId: quoted.id, channelMessageId: quoted.channel_message_id };
      }
      const phone = phoneOrThrow(b.phone);
      const common = { phone, receivedAt, ...(context ? { context } : {}) };
      if (b.media) {
        const sample = media.sample(b.media.type);
        return messages.receive(req.principal, {
          ...common,
          text: b.media.caption ?? '',
          type: 'media',
          media: {
            origin: 'simulator',
            kind: b.media.type,
            declaredMimeType: sample.mimeType,
            fileName: b.media.fileName ?? sample.fileName,
            voice: sample.voice,
          },
        })!;
      }
      if (b.location) {
        return messages.receive(req.principal, {
          ...common,
          text: [b.location.name, b.location.address].filter(Boolean).join(', '),
          type: 'location',
          location: b.location,
        })!;
      }
      if (b.contacts) {
        const contacts = b.contacts.map((c) => ({
          name: c.name,
          phones: c.phones.map((p) => ({
            phone: p,
            waId: /^\+?[1-9]\d{5,14}$/.test(p.replace(/[\s()-]/g, ''))
              ? p.replace(/\D/g, '')
              : null,
            type: null,
          })),
          emails: c.emails.map((email) => ({ email, type: null })),
          organization: c.organization ?? null,
        }));
        return messages.receive(req.principal, {
          ...common,
          text: contacts.map((c) => c.name).join(', '),
          type: 'contacts',
          contacts,
        })!;
      }
      return messages.receive(req.principal, {
        ...common,
        text: b.message ?? listReply!.title,
        type: listReply ? 'list' : 'text',
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
      config: { right: 'simulator.manage' },
      schema: {
        operationId: 'updateSimulatorSettings',
        tags,
        summary: 'Change any subset of the simulator’s settings',
        description:
          'For admins and test keys (an agent reads them but may not change them: 403 `forbidden`, `details.requires: simulator.manage`). The messaging tier and throughput are the business account’s, so they also pace live sends while the simulated channel serves live mode, and `approvalWaitMs` holds live templates after approval.',
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
