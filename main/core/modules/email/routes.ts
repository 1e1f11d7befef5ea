import { z } from 'zod';
import { idParams } from '../../../../shared/schemas/common.ts';
import {
  createEmailCampaignBody,
  emailAddress,
  emailAudienceBody,
  emailAudienceSchema,
  emailCampaignPage,
  emailCampaignSchema,
  emailLinkReportSchema,
  emailMessagePage,
  emailMessageSchema,
  emailSettingsBody,
  emailSettingsSchema,
  emailTimelineSchema,
  launchEmailCampaignBody,
  listEmailCampaignsQuery,
  listEmailRecipientsQuery,
  sendEmailBody,
  simulateEmailClickBody,
  smtpCheckSchema,
  testEmailBody,
  updateEmailCampaignBody,
} from '../../../../shared/schemas/email.ts';
import { ApiError } from '../../../../shared/errors.ts';
import type { OperationDocs } from '../../http/openapi.ts';
import { subscriptionHtml } from './public-routes.ts';
import type { RegisterRoutes } from '../../http/types.ts';

const tags = ['Email'];

const counts = {
  total: 1200,
  pending: 300,
  sent: 900,
  delivered: 880,
  opened: 410,
  clicked: 95,
  bounced: 20,
  failed: 0,
  unsubscribed: 3,
  cancelled: 0,
};

const example = {
  id: 'ecmp_01JH2Z3Q4R5S6T7V8W9X0Y1Z2A',
  name: 'December newsletter',
  status: 'sending',
  subject: 'What is new in December, {{contact.name}}',
  fromName: 'Acme Shop',
  fromEmail: 'news@acme.example',
  replyTo: 'help@acme.example',
  html: '<h1>Hello {{contact.name}}</h1><p>Our <a href="https://acme.example/sale">winter sale</a> starts now.</p>',
  markdown: null,
  text: null,
  audience: { groupId: 'grp_01JH2Z3Q4R5S6T7V8W9X0Y1Z2B' },
  scheduledFor: null,
  counts,
  pauseReason: null,
  pauseMessage: null,
  environment: 'test',
  createdAt: '2026-12-01T09:00:00.000Z',
  updatedAt: '2026-12-01T09:05:00.000Z',
  launchedAt: '2026-12-01T09:05:00.000Z',
  completedAt: null,
};

const createExample = {
  name: 'December newsletter',
  subject: 'What is new in December, {{contact.name}}',
  fromName: 'Acme Shop',
  fromEmail: 'news@acme.example',
  html: '<h1>Hello {{contact.name}}</h1><p>Our winter sale starts now.</p>',
  audience: { filter: { labels: ['newsletter'] } },
};

const messageExample = {
  id: 'em_01JH2Z3Q4R5S6T7V8W9X0Y1Z2C',
  campaignId: null,
  contactId: null,
  to: 'ann@example.com',
  subject: 'Your receipt',
  status: 'delivered',
  attempts: 1,
  error: null,
  smtpResponse: '250 2.0.0 OK queued as 4F2A1',
  sentAt: '2026-12-01T09:05:00.000Z',
  deliveredAt: '2026-12-01T09:05:00.000Z',
  openedAt: null,
  clickedAt: null,
  unsubscribedAt: null,
  createdAt: '2026-12-01T09:05:00.000Z',
  updatedAt: '2026-12-01T09:05:00.000Z',
};

const settingsExample = {
  smtp: {
    host: 'smtp.example.com',
    port: 587,
    secure: false,
    user: 'news@acme.example',
    passwordSet: true,
  },
  ratePerSecond: 10,
  publicUrl: 'https://parley.acme.example',
  effectivePublicUrl: 'https://parley.acme.example',
  oneClickUnsubscribe: true,
  dkim: null,
  defaultFromEmail: 'news@acme.example',
  defaultFromName: 'Acme Shop',
  transport: 'smtp',
  updatedAt: '2026-12-01T09:00:00.000Z',
};

const TRANSITIONS =
  'States: `draft → scheduled → sending → completed`, `sending → paused → sending` (resume by launching again), and any state but `completed` → `cancelled`. A wrong transition answers 409 `invalid_state` with `details.status`.';
const STATE_CHANGE: OperationDocs = {
  errors: ['not_found', 'invalid_state'],
  responseExample: example,
};

export const emailRoutes: RegisterRoutes = (app, { email }) => {
  app.get(
    '/v1/email/campaigns',
    {
      config: {
        right: 'campaigns.read',
        docs: { responseExample: { data: [example], nextCursor: null } },
      },
      schema: {
        operationId: 'listEmailCampaigns',
        tags,
        summary: 'List email campaigns, newest first',
        description: '`?status=` keeps one state; paged with `limit` and `cursor`.',
        querystring: listEmailCampaignsQuery,
        response: { 200: emailCampaignPage },
      },
    },
    async (req) => email.list(req.principal, req.query),
  );

  app.post(
    '/v1/email/campaigns',
    {
      config: {
        right: 'campaigns.write',
        docs: {
          errors: ['not_found'],
          requestExample: createExample,
          responseExample: {
            ...example,
            status: 'draft',
            launchedAt: null,
            counts: {
              ...counts,
              total: 0,
              pending: 0,
              sent: 0,
              delivered: 0,
              opened: 0,
              clicked: 0,
              bounced: 0,
              unsubscribed: 0,
            },
          },
        },
      },
      schema: {
        operationId: 'createEmailCampaign',
        tags,
        summary: 'Create a draft email campaign (or schedule it)',
        description:
          '`subject`, `html` and `text` may use `{{contact.name}}`, `{{contact.phone}}`, `{{contact.email}}` and `{{contact.attributes.KEY}}` (HTML-escaped in `html`), with an optional fallback: `{{contact.attributes.code | "WELCOME"}}`. A value the contact lacks renders as the fallback, else empty (`POST /v1/email/audience` names such placeholders before launch). With `scheduledFor` (ISO 8601 with an offset, in the future) the campaign is `scheduled`; its recipients are fixed when it starts. An unknown group answers 404 with `param: audience.groupId`. The body is `html`, or `markdown` (CommonMark, rendered by markdown-it with raw HTML shown as text and unsafe link schemes refused; placeholders kept, their `<` and `>` escaped; at most 65,536 characters, else 400 `validation_error` with `param: markdown`): the core renders it to `html`, keeps both, and sends the html. Giving both is a 400 with `param: markdown`.',
        body: createEmailCampaignBody,
        response: { 201: emailCampaignSchema },
      },
    },
    (req, reply) => {
      reply.code(201);
      return email.create(req.principal, req.body);
    },
  );

  app.post(
    '/v1/email/audience',
    {
      config: {
        right: 'campaigns.read',
        docs: {
          errors: ['not_found'],
          requestExample: {
            audience: { groupId: 'grp_01JH2Z3Q4R5S6T7V8W9X0Y1Z2B' },
            subject: 'Your code, {{contact.name | "friend"}}',
            html: '<p>Use {{contact.attributes.code}} at checkout.</p>',
          },
          responseExample: {
            total: 1180,
            withoutEmail: 15,
            unsubscribed: 5,
            missingPlaceholders: [{ placeholder: '{{contact.attributes.code}}', recipients: 12 }],
          },
        },
      },
      schema: {
        operationId: 'countEmailAudience',
        tags,
        summary: 'Count an audience’s recipients now',
        description:
          'With `subject`, `html` and `text`: which of their placeholders recipients have no value for, and for how many (an email renders a missing value empty). A fallback, `{{contact.name | "there"}}`, stands in for a missing value.',
        body: emailAudienceBody,
        response: { 200: emailAudienceSchema },
      },
    },
    (req) => email.audience(req.principal, req.body),
  );

  app.get(
    '/v1/email/campaigns/:id',
    {
      config: {
        right: 'campaigns.read',
        docs: { errors: ['not_found'], responseExample: example },
      },
      schema: {
        operationId: 'getEmailCampaign',
        tags,
        summary: 'One email campaign with its counts',
        params: idParams,
        response: { 200: emailCampaignSchema },
      },
    },
    async (req) => email.get(req.principal, req.params.id),
  );

  app.put(
    '/v1/email/campaigns/:id',
    {
      config: {
        right: 'campaigns.write',
        docs: {
          errors: ['not_found', 'invalid_state'],
          requestExample: { subject: 'December news, {{contact.name}}' },
          responseExample: { ...example, status: 'draft', launchedAt: null },
        },
      },
      schema: {
        operationId: 'updateEmailCampaign',
        tags,
        summary: 'Edit a draft or scheduled email campaign',
        description: `Any create field; the others keep their values. \`scheduledFor: null\` turns a scheduled campaign back into a draft. \`markdown\` re-renders \`html\`; \`html\` alone drops the Markdown (the body is HTML from then on), as does \`markdown: null\`, which keeps the rendered html. ${TRANSITIONS}`,
        params: idParams,
        body: updateEmailCampaignBody,
        response: { 200: emailCampaignSchema },
      },
    },
    (req) => email.update(req.principal, req.params.id, req.body),
  );

  app.post(
    '/v1/email/campaigns/:id/launch',
    {
      config: { right: 'campaigns.write', docs: { ...STATE_CHANGE, requestExample: {} } },
      schema: {
        operationId: 'launchEmailCampaign',
        tags,
        summary: 'Send a draft or paused campaign now, or schedule it',
        description: `Recipients (contacts of the audience with an email that have not unsubscribed) are fixed at the first start; an audience with nobody to email answers 400 \`validation_error\` with \`param: audience\`. A paused campaign resumes where it stopped. ${TRANSITIONS}`,
        params: idParams,
        body: launchEmailCampaignBody,
        response: { 200: emailCampaignSchema },
      },
    },
    (req) => email.launch(req.principal, req.params.id, req.body ?? {}),
  );

  app.post(
    '/v1/email/campaigns/:id/pause',
    {
      config: { right: 'campaigns.write', docs: STATE_CHANGE },
      schema: {
        operationId: 'pauseEmailCampaign',
        tags,
        summary: 'Pause a sending campaign',
        description: `No new email starts after the answer (one already in an SMTP exchange finishes). ${TRANSITIONS}`,
        params: idParams,
        response: { 200: emailCampaignSchema },
      },
    },
    (req) => email.pause(req.principal, req.params.id),
  );

  app.post(
    '/v1/email/campaigns/:id/cancel',
    {
      config: { right: 'campaigns.write', docs: STATE_CHANGE },
      schema: {
        operationId: 'cancelEmailCampaign',
        tags,
        summary: 'Cancel a campaign',
        description: `Recipients not yet emailed are \`cancelled\`. ${TRANSITIONS}`,
        params: idParams,
        response: { 200: emailCampaignSchema },
      },
    },
    (req) => email.cancel(req.principal, req.params.id),
  );

  app.get(
    '/v1/email/campaigns/:id/recipients',
    {
      config: {
        right: 'campaigns.read',
        docs: {
          errors: ['not_found'],
          responseExample: { data: [messageExample], nextCursor: null },
        },
      },
      schema: {
        operationId: 'listEmailRecipients',
        tags,
        summary: 'A campaign’s recipients and how each went',
        params: idParams,
        querystring: listEmailRecipientsQuery,
        response: { 200: emailMessagePage },
      },
    },
    async (req) => email.recipients(req.principal, req.params.id, req.query),
  );

  app.get(
    '/v1/email/campaigns/:id/timeline',
    {
      config: {
        right: 'campaigns.read',
        docs: {
          errors: ['not_found'],
          responseExample: {
            bucketSeconds: 60,
            data: [{ at: '2026-12-01T09:05:00.000Z', sent: 600, opened: 120, clicked: 14 }],
          },
        },
      },
      schema: {
        operationId: 'getEmailCampaignTimeline',
        tags,
        summary: 'Sends, first opens and first clicks over time',
        params: idParams,
        response: { 200: emailTimelineSchema },
      },
    },
    async (req) => email.timeline(req.principal, req.params.id),
  );

  app.post(
    '/v1/email/campaigns/:id/test',
    {
      config: {
        right: 'campaigns.write',
        docs: {
          errors: ['not_found'],
          requestExample: { to: 'me@acme.example' },
          responseExample: {
            ...messageExample,
            status: 'sending',
            subject: '[Test] What is new in December',
          },
        },
      },
      schema: {
        operationId: 'sendEmailCampaignTest',
        tags,
        summary: 'Send the campaign’s email to one address (a test)',
        description:
          'Placeholders are filled from `contactId`’s contact when given (the email still goes to `to`); otherwise they render with the address as `{{contact.email}}` and other fields empty. No tracking and no unsubscribe.',
        params: idParams,
        body: testEmailBody,
        response: { 202: emailMessageSchema },
      },
    },
    (req, reply) => {
      reply.code(202);
      return email.sendTest(req.principal, req.params.id, req.body);
    },
  );

  app.get(
    '/v1/email/campaigns/:id/links',
    {
      config: {
        right: 'campaigns.read',
        docs: {
          errors: ['not_found'],
          responseExample: {
            data: [
              {
                url: 'https://acme.example/sale',
                recipients: 81,
                clicks: 112,
                firstClickAt: '2026-12-01T09:06:10.000Z',
                lastClickAt: '2026-12-02T18:40:00.000Z',
              },
            ],
            clickedRecipients: 95,
            totalClicks: 131,
          },
        },
      },
      schema: {
        operationId: 'getEmailCampaignLinks',
        tags,
        summary: 'Which links were clicked, by how many recipients and how often',
        description:
          'One row per link (as written in the email, placeholders filled), most recipients first, at most 500. Counted by the same click redirect as the funnel’s `clicked`; clicks recorded before per-link tracking existed count in the funnel only.',
        params: idParams,
        response: { 200: emailLinkReportSchema },
      },
    },
    async (req) => email.links(req.principal, req.params.id),
  );

  app.get(
    '/v1/email/campaigns/:id/unsubscribe-preview',
    {
      config: { right: 'campaigns.read', docs: { errors: ['not_found', 'forbidden'] } },
      schema: {
        operationId: 'previewEmailUnsubscribePage',
        tags,
        summary: 'The campaign’s unsubscribe page as a recipient sees it, marked “Preview”',
        description:
          'For the desk (a signed-in session; an API key gets 403 `forbidden`). The same page a recipient’s unsubscribe link opens, in the state asked (`ask`, the default; `unsubscribed`; `resubscribed`), with the campaign’s sender and audience and its first recipient’s address (`recipient@example.com` before launch). Marked “Preview”; its buttons post nowhere and its look comes from `/e/page.css`. Nothing changes: no token is used, no one is unsubscribed.',
        params: idParams,
        querystring: z.object({
          state: z.enum(['ask', 'unsubscribed', 'resubscribed']).optional(),
        }),
        produces: ['text/html'],
        response: { 200: z.string().describe('An HTML page') },
      },
    },
    async (req, reply) => {
      if (req.principal.kind !== 'session') {
        throw new ApiError('forbidden', 'The unsubscribe preview is for the desk: sign in to it.');
      }
      const who = email.unsubscribePreview(req.principal, req.params.id);
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(subscriptionHtml(null, who, req.query.state ?? 'ask'));
    },
  );

  app.post(
    '/api/simulator/email/click',
    {
      config: {
        right: 'simulator',
        docs: {
          errors: ['not_found', 'invalid_state'],
          requestExample: { messageId: 'em_01JH2Z3Q4R5S6T7V8W9X0Y1Z2C' },
          responseExample: {
            ...messageExample,
            campaignId: example.id,
            clickedAt: '2026-12-01T09:06:00.000Z',
          },
        },
      },
      schema: {
        operationId: 'simulateEmailClick',
        tags: ['Simulator (test keys)'],
        summary: 'A test email’s recipient clicks one of its links',
        description:
          'Test keys only (403 `forbidden` with a live key). The email is composed as it went out and its tracked link (`url`, else the first) is followed through the same redirect a real click takes: the funnel’s `clicked`, the per-link report and `email_campaign.progress` move. 400 when the email has no such link; 409 `invalid_state` unless it was sent or delivered.',
        body: simulateEmailClickBody,
        response: { 200: emailMessageSchema },
      },
    },
    (req) => email.simulateClick(req.principal, req.body.messageId, req.body.url),
  );

  app.post(
    '/v1/email/send',
    {
      config: {
        right: 'send',
        docs: {
          requestExample: {
            to: 'ann@example.com',
            subject: 'Your receipt',
            html: '<p>Thank you for your order.</p>',
            fromEmail: 'orders@acme.example',
          },
          responseExample: { id: messageExample.id, status: 'sending' },
        },
      },
      schema: {
        operationId: 'sendEmail',
        tags,
        summary: 'Send one transactional email',
        description:
          'Test keys use the simulated transport (`*@bounce.test` bounces); live keys send through the workspace’s SMTP server. `fromEmail` defaults to the settings’ `defaultFromEmail`. Follow it with `GET /v1/email/messages/:id`.',
        body: sendEmailBody,
        response: { 202: z.object({ id: z.string(), status: z.string() }) },
      },
    },
    (req, reply) => {
      reply.code(202);
      const m = email.send(req.principal, req.body);
      return { id: m.id, status: m.status };
    },
  );

  app.get(
    '/v1/email/messages/:id',
    {
      config: {
        right: 'campaigns.read',
        docs: { errors: ['not_found'], responseExample: messageExample },
      },
      schema: {
        operationId: 'getEmailMessage',
        tags,
        summary: 'One email and how it went',
        params: idParams,
        response: { 200: emailMessageSchema },
      },
    },
    async (req) => email.message(req.principal, req.params.id),
  );

  app.get(
    '/v1/email/settings',
    {
      config: { right: 'email_settings.read', docs: { responseExample: settingsExample } },
      schema: {
        operationId: 'getEmailSettings',
        tags,
        summary: 'Email settings (secrets shown as set or not)',
        response: { 200: emailSettingsSchema },
      },
    },
    async (req) => email.settings(req.principal),
  );

  app.put(
    '/v1/email/settings',
    {
      // The SMTP host and port aim the core at a host: an admin-session setting, never an API
      // key's (README "Email"), so a key cannot turn the core into a port scanner.
      config: {
        right: 'email_settings.manage',
        docs: {
          requestExample: {
            smtp: {
              host: 'smtp.example.com',
              port: 587,
              secure: false,
              user: 'news@acme.example',
              password: 'app-password',
            },
            ratePerSecond: 10,
            publicUrl: 'https://parley.acme.example',
          },
          responseExample: settingsExample,
        },
      },
      schema: {
        operationId: 'updateEmailSettings',
        tags,
        summary: 'Change email settings (the app only)',
        description:
          'Only the Parley app’s session may change them (an API key gets 403 `forbidden`): the SMTP host and port aim the core at a host. Fields left out keep their values; `smtp: null` / `dkim: null` remove them. `password` and `dkim.privateKey` are write-only (leave them out to keep the stored ones). Test keys always use the simulated transport. Connections to the SMTP server go through the outbound policy: a server on this machine or a private network only when the workspace allows private targets.',
        body: emailSettingsBody,
        response: { 200: emailSettingsSchema },
      },
    },
    (req) => email.saveSettings(req.principal, req.body),
  );

  app.post(
    '/v1/email/settings/check',
    {
      config: {
        right: 'email_settings.manage',
        docs: {
          requestExample: { to: 'me@acme.example' },
          responseExample: {
            ok: false,
            outcome: 'auth_failed',
            code: 'EAUTH',
            response:
              'smtp.example.com:587 refused the login: 535 5.7.8 Authentication credentials invalid',
          },
        },
      },
      schema: {
        operationId: 'checkEmailSettings',
        tags,
        summary: 'Check the SMTP server (and send a test message; the app only)',
        description:
          'Only the Parley app’s session may call it (an API key gets 403 `forbidden`). Connects through the outbound policy and logs in; with `to` also sends a short message. Answers a classified `outcome` — `connected`, `auth_failed`, `tls_failed`, `unreachable`, `not_smtp` — never what a server that is not an SMTP server sent.',
        body: z.object({ to: emailAddress.optional() }).strict().default({}),
        response: { 200: smtpCheckSchema },
      },
    },
    async (req) => email.checkSmtp(req.principal, req.body?.to),
  );
};
