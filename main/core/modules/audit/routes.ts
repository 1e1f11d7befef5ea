import { z } from 'zod';
import { page, pageQuery } from '../../../../shared/schemas/common.ts';
import { auditEntrySchema, auditQuery } from '../../../../shared/schemas/members.ts';
import { sendCsv } from '../../http/csv-export.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import { actorOf } from '../members/routes.ts';
import { AUDIT_CSV_HEADER, checkAuditFilter } from './service.ts';

const tags = ['Members'];

/** The audit trail, for admins: read it a page at a time, or take it all as CSV. */
export const auditRoutes: RegisterRoutes = (app, { audit, clock }) => {
  app.get(
    '/audit',
    {
      config: { right: 'audit' },
      schema: {
        operationId: 'listAudit',
        tags,
        summary: 'The audit trail, newest first (kept 400 days)',
        description:
          'Sign-ins and their failures, sign-outs, member and role changes, API keys, top-ups and prices, settings changes, campaign and workflow state changes, exports and deletions. `action` takes one action or a family with a trailing dot (`member.`).',
        querystring: pageQuery.extend(auditQuery.shape),
        response: { 200: page(auditEntrySchema) },
      },
    },
    async (req) => {
      const { limit, cursor, ...filter } = req.query;
      return audit.list(req.principal.workspaceId, checkAuditFilter(filter), limit, cursor);
    },
  );

  app.get(
    '/audit/export',
    {
      config: { right: 'audit' },
      schema: {
        operationId: 'exportAudit',
        tags,
        summary: 'The audit trail as CSV (same filters; UTF-8 with BOM, formula-safe)',
        querystring: auditQuery,
        produces: ['text/csv'],
        response: { 200: z.string().describe('CSV') },
      },
    },
    async (req, reply) => {
      const filter = checkAuditFilter(req.query);
      const { workspaceId } = req.principal;
      audit.append({
        workspaceId,
        actor: actorOf(req.principal),
        action: 'export.created',
        target: { type: 'audit', id: null, label: 'audit trail' },
        address: req.ip,
        details: { filter },
      });
      const day = new Date(clock.now()).toISOString().slice(0, 10);
      return sendCsv<number>(reply, `parley-audit-${day}.csv`, AUDIT_CSV_HEADER, (after) =>
        audit.exportBatch(workspaceId, filter, after),
      );
    },
  );
};
