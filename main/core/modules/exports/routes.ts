/**
 * Exports (design.md §8, README "Exports"): the contacts the list's filters match, a campaign's
 * recipients, an email campaign's recipients — streamed CSV by the one mechanism the audit
 * export uses (http/csv-export.ts), in the caller's scope only, each in the audit trail as
 * `export.created` (appended before the file streams, like the audit export's).
 */
import { z } from 'zod';
import { listRecipientsQuery } from '../../../../shared/schemas/campaigns.ts';
import { idParams } from '../../../../shared/schemas/common.ts';
import { listContactsQuery } from '../../../../shared/schemas/contacts.ts';
import { listEmailRecipientsQuery } from '../../../../shared/schemas/email.ts';
import type { CampaignRecipient } from '../../../../shared/schemas/campaigns.ts';
import type { EmailMessage } from '../../../../shared/schemas/email.ts';
import type { FastifyRequest } from 'fastify';
import { EXPORT_BATCH, exportFilename, sendCsv } from '../../http/csv-export.ts';
import type { RegisterRoutes, ZodApp } from '../../http/types.ts';
import type { Scope } from '../../runtime.ts';
import type { Services } from '../../services.ts';
import type { AuditService } from '../audit/service.ts';
import { actorOf } from '../members/routes.ts';

const CSV_ANSWER = {
  produces: ['text/csv'],
  response: { 200: z.string().describe('CSV: UTF-8 with a BOM, a header row, CRLF') },
};
const CSV_RULES =
  "Streamed, UTF-8 with a BOM, a header row, CRLF line ends; a cell that starts with `=`, `+`, `-`, `@`, a tab or a CR is prefixed with `'` (formula injection). Each export is in the audit trail (`export.created`).";

export const CAMPAIGN_RECIPIENT_CSV_COLUMNS = [
  'phone',
  'name',
  'contact_id',
  'status',
  'attempts',
  'message_id',
  'error_code',
  'error_message',
  'next_attempt_at',
  'updated_at',
] as const;

const campaignRecipientRow = (r: CampaignRecipient): unknown[] => [
  r.phone,
  r.name,
  r.contactId,
  r.status,
  r.attempts,
  r.messageId,
  r.error?.code,
  r.error?.message,
  r.nextAttemptAt,
  r.updatedAt,
];

export const EMAIL_RECIPIENT_CSV_COLUMNS = [
  'email',
  'contact_id',
  'subject',
  'status',
  'attempts',
  'error_code',
  'error_message',
  'smtp_response',
  'sent_at',
  'delivered_at',
  'opened_at',
  'clicked_at',
  'unsubscribed_at',
  'updated_at',
] as const;

const emailRecipientRow = (m: EmailMessage): unknown[] => [
  m.to,
  m.contactId,
  m.subject,
  m.status,
  m.attempts,
  m.error?.code,
  m.error?.message,
  m.smtpResponse,
  m.sentAt,
  m.deliveredAt,
  m.openedAt,
  m.clickedAt,
  m.unsubscribedAt,
  m.updatedAt,
];

/** What was asked, without what was left out: the audit entry's `filter`. */
const given = (query: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== ''));

/** The export in the audit trail, before its file streams. */
function audited(
  audit: AuditService,
  req: FastifyRequest,
  target: { type: string; id: string | null; label: string | null },
  filter: Record<string, unknown>,
): void {
  const p = req.principal;
  audit.append({
    workspaceId: p.workspaceId,
    actor: actorOf(p),
    action: 'export.created',
    target,
    address: req.ip,
    details: { environment: p.environment, filter },
  });
}

/** A campaign's recipients as an export: how to find it, read its pages, write a row. */
interface RecipientsExport<T, S extends string> {
  url: string;
  operationId: string;
  tag: string;
  summary: string;
  columns: readonly string[];
  statuses: z.ZodType<{ status?: S | undefined }>;
  /** The audit target's type and the file's name: `<kind>-<id>-recipients`. */
  kind: 'campaign' | 'email_campaign';
  /** The campaign in the caller's scope (404 `not_found` otherwise). */
  find: (scope: Scope, id: string) => { id: string; name: string };
  page: (
    scope: Scope,
    id: string,
    q: { limit: number; status?: S; cursor?: string },
  ) => { data: T[]; nextCursor: string | null };
  row: (item: T) => unknown[];
}

/** `GET <campaign>/recipients/export`: the list's `status` filter, a page of the list a batch. */
function recipientsExportRoute<T, S extends string>(
  app: ZodApp,
  { audit, clock }: Pick<Services, 'audit' | 'clock'>,
  e: RecipientsExport<T, S>,
): void {
  app.get(
    e.url,
    {
      config: { right: 'exports', docs: { errors: ['not_found'] } },
      schema: {
        operationId: e.operationId,
        tags: [e.tag],
        summary: e.summary,
        description: `\`?status=\` keeps one state, as the list does. Columns: ${e.columns.map((c) => `\`${c}\``).join(', ')}. ${CSV_RULES}`,
        params: idParams,
        querystring: e.statuses,
        ...CSV_ANSWER,
      },
    },
    async (req, reply) => {
      const scope = req.principal;
      const campaign = e.find(scope, req.params.id);
      const { status } = req.query;
      const target = { type: e.kind, id: campaign.id, label: campaign.name };
      audited(audit, req, target, given({ status }));
      const next = (after: string | null) => {
        const page = e.page(scope, campaign.id, {
          limit: EXPORT_BATCH,
          ...(status ? { status } : {}),
          ...(after ? { cursor: after } : {}),
        });
        return { rows: page.data.map(e.row), last: page.nextCursor };
      };
      const name = `${e.kind.replace('_', '-')}-${campaign.id}-recipients`;
      return sendCsv(reply, exportFilename(name, clock.now()), e.columns, next);
    },
  );
}

export const exportsRoutes: RegisterRoutes = (app, services) => {
  const { contacts, campaigns, email, audit, clock } = services;
  const contactsFilter = listContactsQuery.omit({ limit: true, cursor: true });
  app.get(
    '/api/contacts/export',
    {
      config: { right: 'exports', docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'exportContacts',
        tags: ['Contacts'],
        summary: 'The contacts the list’s filters match, as CSV',
        description: `The same filters as \`GET /api/contacts\` (\`phone\`, \`waUserId\`, \`label\`, \`group\`, \`q\`; an unknown group answers 404), newest first. Columns: \`id\`, \`phone\`, \`whatsapp_user_id\`, \`name\`, \`email\`, \`labels\` (joined by \`;\`), \`created_at\`, \`updated_at\`, \`last_inbound_at\`, \`email_unsubscribed_at\`, then one column per attribute key the exported contacts use (sorted; \`attributes.KEY\` where a key is one of those names). ${CSV_RULES}`,
        querystring: contactsFilter.extend({
          format: z.enum(['csv']).default('csv').describe('the file’s format (CSV only)'),
        }),
        ...CSV_ANSWER,
      },
    },
    async (req, reply) => {
      const { format: _format, ...filter } = req.query;
      const { header, next } = contacts.export(req.principal, filter);
      audited(audit, req, { type: 'contacts', id: null, label: 'contacts' }, given(filter));
      return sendCsv(reply, exportFilename('contacts', clock.now()), header, next);
    },
  );

  recipientsExportRoute(app, services, {
    url: '/campaigns/:id/recipients/export',
    operationId: 'exportCampaignRecipients',
    tag: 'Campaigns',
    summary: 'A campaign’s recipients as CSV, in launch order',
    columns: CAMPAIGN_RECIPIENT_CSV_COLUMNS,
    statuses: listRecipientsQuery.pick({ status: true }),
    kind: 'campaign',
    find: campaigns.get,
    page: campaigns.recipients,
    row: campaignRecipientRow,
  });

  recipientsExportRoute(app, services, {
    url: '/v1/email/campaigns/:id/recipients/export',
    operationId: 'exportEmailRecipients',
    tag: 'Email',
    summary: 'An email campaign’s recipients and how each went, as CSV',
    columns: EMAIL_RECIPIENT_CSV_COLUMNS,
    statuses: listEmailRecipientsQuery.pick({ status: true }),
    kind: 'email_campaign',
    find: email.get,
    page: email.recipients,
    row: emailRecipientRow,
  });
};
