import { z } from 'zod';
import { idParams, page } from '../../../../shared/schemas/common.ts';
import {
  createTemplateBody,
  createTemplateResponse,
  editTemplateBody,
  listTemplatesQuery,
  syncResponse,
  templateSchema,
} from '../../../../shared/schemas/templates.ts';
import type { RegisterRoutes } from '../../http/types.ts';

const tags = ['Templates'];

export const templatesRoutes: RegisterRoutes = (app, { templates, channels }) => {
  app.post(
    '/api/templates',
    {
      config: { right: 'templates.write' },
      schema: {
        operationId: 'createTemplate',
        tags,
        summary: 'Create a template and submit it for approval (status PENDING)',
        description:
          'Rules: name `^[a-z0-9_]{1,512}$`; HEADER (TEXT, ≤ 60 chars, ≤ 1 variable); BODY required (≤ 1024); FOOTER (≤ 60, no variables); BUTTONS (≤ 10: QUICK_REPLY ≤ 10, URL ≤ 2, PHONE_NUMBER ≤ 1, COPY_CODE ≤ 1 and MARKETING only; text ≤ 25). Variables `{{1}}…{{n}}` without gaps.',
        body: createTemplateBody,
        response: { 200: createTemplateResponse },
      },
    },
    (req) => ({
      success: true as const,
      template: templates.create(req.principal, req.body),
    }),
  );

  app.get(
    '/api/templates',
    {
      config: { right: 'templates.read' },
      schema: {
        operationId: 'listTemplates',
        tags,
        summary: 'Get all templates, newest first',
        querystring: listTemplatesQuery,
        response: { 200: page(templateSchema) },
      },
    },
    async (req) => templates.list(req.principal, req.query),
  );

  app.post(
    '/api/templates/sync',
    {
      config: { right: 'templates.write', docs: { errors: ['channel_error'] } },
      schema: {
        operationId: 'syncTemplates',
        tags,
        summary: 'Sync templates with the channel provider (completes due reviews)',
        response: { 200: syncResponse },
      },
    },
    async (req, reply) => {
      // Meta's list is read first (a network call), then applied in one transaction.
      const pulled = await templates.pull(req.principal);
      // A sync also reads the number's current tier and throughput (they pace live sends).
      if (pulled) await channels.check(req.principal);
      return app.commitWithResponse(req, reply, () => templates.sync(req.principal, pulled));
    },
  );

  app.get(
    '/api/templates/:id',
    {
      config: { right: 'templates.read' },
      schema: {
        operationId: 'getTemplate',
        tags,
        summary: 'Get one template',
        params: idParams,
        response: { 200: templateSchema },
      },
    },
    async (req) => templates.get(req.principal, req.params.id),
  );

  app.put(
    '/api/templates/:id/edit',
    {
      config: { right: 'templates.write', docs: { errors: ['invalid_state'] } },
      schema: {
        operationId: 'editTemplate',
        tags,
        summary: 'Edit an APPROVED, REJECTED or PAUSED template; it returns to PENDING',
        params: idParams,
        body: editTemplateBody,
        response: { 200: templateSchema },
      },
    },
    async (req) => templates.edit(req.principal, req.params.id, req.body),
  );

  app.delete(
    '/api/templates/:id',
    {
      config: { right: 'templates.write' },
      schema: {
        operationId: 'deleteTemplate',
        tags,
        summary: 'Delete a template',
        params: idParams,
        response: { 200: z.object({ success: z.literal(true), id: z.string() }) },
      },
    },
    async (req) => templates.remove(req.principal, req.params.id),
  );
};
