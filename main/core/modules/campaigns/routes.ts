import {
  audienceBody,
  audienceSchema,
  campaignIdBody,
  campaignPage,
  campaignProgressSchema,
  campaignSchema,
  campaignTimelineSchema,
  contactCampaignPage,
  createCampaignBody,
  launchCampaignBody,
  listCampaignsQuery,
  listRecipientsQuery,
  recipientPage,
  updateCampaignBody,
} from '../../../../shared/schemas/campaigns.ts';
import { idParams } from '../../../../shared/schemas/common.ts';
import type { OperationDocs } from '../../http/openapi.ts';
import type { RegisterRoutes } from '../../http/types.ts';

const tags = ['Campaigns'];

const progressExample = {
  status: 'sending',
  total: 1200,
  pending: 700,
  retrying: 2,
  sent: 490,
  delivered: 410,
  read: 150,
  failed: 6,
  skipped: 2,
  ratePerSecond: 79.8,
  etaSeconds: 9,
  blockedUntil: null,
  blockedBy: null,
};

const example = {
  id: 'cmp_01JH2Z3Q4R5S6T7V8W9X0Y1Z2A',
  name: 'Spring sale',
  status: 'sending',
  templateName: 'spring_sale',
  variables: { '1': '{{contact.name}}', '2': 'SPRING20' },
  target: { groupId: 'grp_01JH2Z3Q4R5S6T7V8W9X0Y1Z2B' },
  scheduledFor: null,
  metrics: progressExample,
  pauseReason: null,
  failureReason: null,
  environment: 'test',
  createdAt: '2026-03-01T09:00:00.000Z',
  updatedAt: '2026-03-01T09:05:00.000Z',
  launchedAt: '2026-03-01T09:05:00.000Z',
  completedAt: null,
};

const createExample = {
  name: 'Spring sale',
  templateName: 'spring_sale',
  variables: { '1': '{{contact.name}}', '2': 'SPRING20' },
  target: { filter: { labels: ['vip', 'newsletter'] } },
};

const RULES =
  '`variables` fill the template’s `{{1}}…{{n}}` (exactly its count, else 400 `template_variables_mismatch`); values may use `{{contact.name}}`, `{{contact.phone}}`, `{{contact.email}}` and `{{contact.attributes.KEY}}`, rendered per recipient at launch. `target` is `{groupId}` or `{filter: {labels?, phones?, attributes?}}` (labels: any of; attributes: all equal; phones: E.164).';

const TRANSITIONS =
  'States: `draft → scheduled → sending → completed`, `sending ⇄ paused`, any non-final state → `cancelled`, and `failed` when the template stops being sendable. A wrong transition answers 409 `invalid_state` with `details.status`.';

const BY_ID: OperationDocs = { errors: ['not_found'] };
const STATE_CHANGE: OperationDocs = {
  errors: ['not_found', 'invalid_state'],
  requestExample: { id: example.id },
  responseExample: example,
};

export const campaignsRoutes: RegisterRoutes = (app, { campaigns }) => {
  app.get(
    '/campaigns',
    {
      config: {
        right: 'campaigns.read',
        docs: { responseExample: { data: [example], nextCursor: null } },
      },
      schema: {
        operationId: 'listCampaigns',
        tags,
        summary: 'List campaigns with their status and metrics, newest first',
        description:
          '`?status=` keeps one state. `?contactId=` lists the campaigns that contact is a recipient of, each with its `recipient` outcome (the inbox’s contact panel).',
        querystring: listCampaignsQuery,
        response: { 200: contactCampaignPage.or(campaignPage) },
      },
    },
    async (req) => campaigns.list(req.principal, req.query),
  );

  app.post(
    '/campaigns',
    {
      config: {
        right: 'campaigns.write',
        docs: {
          errors: ['not_found', 'template_not_found', 'template_variables_mismatch'],
          requestExample: createExample,
          responseExample: { ...example, status: 'draft', launchedAt: null },
        },
      },
      schema: {
        operationId: 'createCampaign',
        tags,
        summary: 'Create a draft campaign for a group or a filter',
        description: `${RULES} The template must exist (it may still be in review); an unknown group answers 404 \`not_found\` with \`param: target.groupId\`. \`scheduledFor\` (optional, in the future) is used when the draft is launched.`,
        body: createCampaignBody,
        response: { 201: campaignSchema },
      },
    },
    (req, reply) => {
      reply.code(201);
      return campaigns.create(req.principal, req.body);
    },
  );

  app.put(
    '/campaigns',
    {
      config: {
        right: 'campaigns.write',
        docs: {
          errors: [
            'not_found',
            'invalid_state',
            'template_not_found',
            'template_variables_mismatch',
          ],
          requestExample: { id: example.id, name: 'Spring sale (final)' },
          responseExample: { ...example, status: 'draft', launchedAt: null },
        },
      },
      schema: {
        operationId: 'updateCampaign',
        tags,
        summary: 'Edit a draft campaign',
        description: `Drafts only: a launched campaign answers 409 \`invalid_state\`. The body names the campaign by \`id\` and carries any of the create fields; the others keep their values. ${RULES}`,
        body: updateCampaignBody,
        response: { 200: campaignSchema },
      },
    },
    async (req) => campaigns.update(req.principal, req.body),
  );

  app.post(
    '/campaigns/launch',
    {
      config: {
        right: 'campaigns.write',
        docs: {
          errors: [
            'not_found',
            'invalid_state',
            'template_not_found',
            'template_not_approved',
            'template_not_ready',
            'template_paused',
            'template_variables_mismatch',
          ],
          requestExample: { id: example.id },
          responseExample: example,
        },
      },
      schema: {
        operationId: 'launchCampaign',
        tags,
        summary: 'Launch a draft now or on its schedule, or resume a paused campaign',
        description: `A draft’s recipients are fixed now: one per contact the target matches (a target matching nobody answers 400 \`validation_error\` with \`param: target\`), each with its variables rendered — a recipient whose variables read a field it lacks fails at once with \`variable_missing\`. The template must be sendable now. With \`scheduledFor\` in the future (or the draft’s own) the campaign is \`scheduled\`, else \`sending\`. A \`paused\` campaign resumes. ${TRANSITIONS}`,
        body: launchCampaignBody,
        response: { 200: campaignSchema },
      },
    },
    (req) => campaigns.launch(req.principal, req.body),
  );

  app.post(
    '/campaigns/pause',
    {
      config: { right: 'campaigns.write', docs: STATE_CHANGE },
      schema: {
        operationId: 'pauseCampaign',
        tags,
        summary: 'Pause a sending or scheduled campaign',
        description: `Nothing more is handed to the channel until it is launched again. ${TRANSITIONS}`,
        body: campaignIdBody,
        response: { 200: campaignSchema },
      },
    },
    (req) => campaigns.pause(req.principal, req.body.id),
  );

  app.post(
    '/campaigns/cancel',
    {
      config: { right: 'campaigns.write', docs: STATE_CHANGE },
      schema: {
        operationId: 'cancelCampaign',
        tags,
        summary: 'Cancel a campaign',
        description: `Recipients not yet sent are \`skipped\`. ${TRANSITIONS}`,
        body: campaignIdBody,
        response: { 200: campaignSchema },
      },
    },
    (req) => campaigns.cancel(req.principal, req.body.id),
  );

  app.post(
    '/campaigns/audience',
    {
      config: {
        right: 'campaigns.read',
        docs: {
          errors: ['not_found'],
          requestExample: {
            target: { groupId: 'grp_01JH2Z3Q4R5S6T7V8W9X0Y1Z2B' },
            templateName: 'spring_sale',
            variables: { '1': '{{contact.name}}', '2': 'SPRING20' },
          },
          responseExample: {
            total: 1200,
            missingVariables: 14,
            missingPlaceholders: [{ placeholder: '{{contact.name}}', recipients: 14 }],
            sample: {
              contactId: 'ct_01JH2Z3Q4R5S6T7V8W9X0Y1Z2C',
              phone: '+14155550100',
              name: 'Ann',
              variables: { '1': 'Ann', '2': 'SPRING20' },
              text: 'Hi Ann, 20% off with SPRING20',
            },
          },
        },
      },
      schema: {
        operationId: 'previewCampaignAudience',
        tags,
        summary: 'Count a target’s recipients and preview one',
        description:
          'What a launch would fix now, without creating anything: how many contacts the target matches, how many would fail with `variable_missing` and exactly which placeholders they lack (`missingPlaceholders`: a placeholder with a fallback, `{{contact.name | "there"}}`, is never missing), and the first one’s rendered variables and template text.',
        body: audienceBody,
        response: { 200: audienceSchema },
      },
    },
    (req) => campaigns.audience(req.principal, req.body),
  );

  app.get(
    '/campaigns/:id',
    {
      config: { right: 'campaigns.read', docs: { ...BY_ID, responseExample: example } },
      schema: {
        operationId: 'getCampaign',
        tags,
        summary: 'One campaign',
        params: idParams,
        response: { 200: campaignSchema },
      },
    },
    async (req) => campaigns.get(req.principal, req.params.id),
  );

  app.get(
    '/campaigns/:id/progress',
    {
      config: { right: 'campaigns.read', docs: { ...BY_ID, responseExample: progressExample } },
      schema: {
        operationId: 'getCampaignProgress',
        tags,
        summary: 'Live progress of a campaign',
        description:
          'A funnel: `total = pending + retrying + sent + failed + skipped`, `read ≤ delivered ≤ sent` at every read. `ratePerSecond` counts hand-overs over the last 10 s; `etaSeconds` estimates the rest. While the governor holds the campaign, `blockedBy` says why (`tier`, `throughput` or `pair_rate`) and `blockedUntil` until when. The same object arrives as `campaign.progress` events (at most one a second) on the stream and webhooks.',
        params: idParams,
        response: { 200: campaignProgressSchema },
      },
    },
    async (req) => campaigns.progress(req.principal, req.params.id),
  );

  app.get(
    '/campaigns/:id/recipients',
    {
      config: { right: 'campaigns.read', docs: BY_ID },
      schema: {
        operationId: 'listCampaignRecipients',
        tags,
        summary: 'A campaign’s recipients, in launch order',
        description:
          '`?status=` keeps one state: `pending`, `retrying`, `sent` (not yet delivered), `delivered`, `read`, `failed` or `skipped`. `error.code` is the channel’s code (`131026`, `130429`, …) or `variable_missing`, `cancelled`, `template_not_sendable`.',
        params: idParams,
        querystring: listRecipientsQuery,
        response: { 200: recipientPage },
      },
    },
    async (req) => campaigns.recipients(req.principal, req.params.id, req.query),
  );

  app.get(
    '/campaigns/:id/timeline',
    {
      config: { right: 'campaigns.read', docs: BY_ID },
      schema: {
        operationId: 'getCampaignTimeline',
        tags,
        summary: 'Hand-overs over time (the send-rate chart)',
        description:
          'Messages handed to the channel (`sent`) and refused by it (`failed`) per bucket of `bucketSeconds`, from the first hand-over to the last; at most 300 buckets.',
        params: idParams,
        response: { 200: campaignTimelineSchema },
      },
    },
    async (req) => campaigns.timeline(req.principal, req.params.id),
  );
};
