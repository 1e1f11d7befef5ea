import {
  businessEventBody,
  businessEventResponse,
  createdWorkflowSchema,
  definitionBody,
  listRunsQuery,
  patchWorkflowBody,
  runDetailSchema,
  runPage,
  runSchema,
  triggerWorkflowBody,
  updateWorkflowBody,
  versionParams,
  workflowBody,
  workflowPage,
  workflowSchema,
  workflowVersionsSchema,
} from '../../../../shared/schemas/workflows.ts';
import { idParams, pageQuery } from '../../../../shared/schemas/common.ts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { storedWithout } from '../../http/idempotency.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import { actorOf } from '../members/routes.ts';
import type { Changer } from './service.ts';

/** Who asks (a version's `activatedBy`, the audit trail's actor). */
const who = (req: FastifyRequest): Changer => ({ actor: actorOf(req.principal), address: req.ip });

const tags = ['Workflows'];

/**
 * The signing secret is shown once (design.md §6: no stored idempotent answer keeps a secret):
 * under an Idempotency-Key only the workflow's record is kept, and a replay answers 409
 * `idempotency_conflict` with it in `error.details.created`, as `POST /api/keys` does.
 */
const secretAnswer = storedWithout('secret');
const ONCE =
  'With an `Idempotency-Key`, a replay answers 409 `idempotency_conflict` with the workflow’s record in `error.details.created`, never the secret: rotate the secret if the answer was lost.';
const runParams = z.object({ runId: z.string().min(1).max(100) });

const STEPS =
  'Triggers: `event {event}` (POST /api/events), `manual` (POST /workflows/trigger), `message_received {keywords?, match?: any|whole_word|exact, firstMessageOnly?, outsideHours?}` (a customer’s message, unless a person replied in or took over the conversation in the last 24 h), `conversation_status {to: resolved|open}`, `list_reply {listId}`. Steps run in order (`next` overrides; the last one ends the run): `send_template {templateName, variables}`, `send_text {text}` and `send_list {listId}` (the last two inside the 24 h window only), `wait {duration}` (ISO 8601: `PT2S`, `PT15M`, `P1D`), `wait_for_reply {timeout, onTimeout?}` (the reply is `{{reply.text}}`), `branch {conditions: [{if: {value, op, equals?}, goto}], else?}` (op: eq ne gt gte lt lte contains exists is_open_now), `webhook {url, method?, body?, onError?}` (signed with the workflow’s secret; the JSON answer is `{{steps.ID.FIELD}}`), `update_conversation {status?, assignee?, addLabels?, removeLabels?}`, `assign {to: memberId|round_robin}` (hands the conversation to a person: the run ends `handed_off`), `end`. Template strings: `{{payload.X}}`, `{{contact.name}}`, `{{reply.text}}`, `{{steps.ID.FIELD}}`. A problem answers 400 `validation_error` naming the field (`steps.3.duration`), and so, at save, does a `listId` that is not a list of this workspace and environment, an `assignee` that is not an agent of this workspace, and a `webhook` URL whose host is a private or loopback IP (any spelling) or a local-only name (`localhost`, `.local`) unless the workspace allows private webhook targets (a host name is checked against what it resolves to when the step runs).';

export const workflowsRoutes: RegisterRoutes = (app, { workflows }) => {
  app.get(
    '/workflows',
    {
      config: { right: 'automation.read' },
      schema: {
        operationId: 'listWorkflows',
        tags,
        summary: 'Workflows, newest first, with their running and waiting runs',
        querystring: pageQuery,
        response: { 200: workflowPage },
      },
    },
    async (req) => workflows.list(req.principal, req.query),
  );

  app.post(
    '/workflows',
    {
      config: { right: 'automation.write', secretAnswer },
      schema: {
        operationId: 'createWorkflow',
        tags,
        summary: 'Create a workflow (active unless `status: paused` or `draft`)',
        description: `${STEPS} The answer carries the workflow’s \`secret\`, shown only here. ${ONCE}`,
        body: workflowBody,
        response: { 201: createdWorkflowSchema },
      },
    },
    (req, reply) => {
      reply.code(201);
      return workflows.create(req.principal, req.body, who(req));
    },
  );

  app.put(
    '/workflows',
    {
      config: { right: 'automation.write', docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'updateWorkflow',
        tags,
        summary: 'Save a new version of a workflow',
        description: `The body names the workflow by \`id\`; fields not given keep their values. Runs in flight finish on the version they started with. ${STEPS}`,
        body: updateWorkflowBody,
        response: { 200: workflowSchema },
      },
    },
    async (req) => workflows.update(req.principal, req.body, who(req)),
  );

  app.get(
    '/workflows/runs/:runId',
    {
      config: { right: 'automation.read', docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'getWorkflowRun',
        tags,
        summary: 'One run with its steps (times, outputs, errors)',
        params: runParams,
        response: { 200: runDetailSchema },
      },
    },
    async (req) => workflows.run(req.principal, req.params.runId),
  );

  app.post(
    '/workflows/runs/:runId/cancel',
    {
      config: { right: 'automation.write', docs: { errors: ['not_found', 'invalid_state'] } },
      schema: {
        operationId: 'cancelWorkflowRun',
        tags,
        summary: 'Cancel a running or waiting run',
        params: runParams,
        response: { 200: runSchema },
      },
    },
    (req) => workflows.cancel(req.principal, req.params.runId),
  );

  app.post(
    '/workflows/trigger',
    {
      config: { right: 'automation.write', docs: { errors: ['not_found', 'invalid_state'] } },
      schema: {
        operationId: 'triggerWorkflow',
        tags,
        summary: 'Start a run for a contact (by phone or contactId)',
        description:
          'Active workflows start runs on their version; a `draft` workflow runs its definition too (the builder’s test run); paused and archived ones answer 409 `invalid_state`, and so does a contact already in a running or waiting run of the workflow.',
        body: triggerWorkflowBody,
        response: { 201: runSchema },
      },
    },
    (req, reply) => {
      reply.code(201);
      return workflows.trigger(req.principal, req.body);
    },
  );

  app.get(
    '/workflows/:id',
    {
      config: { right: 'automation.read', docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'getWorkflow',
        tags,
        summary: 'One workflow (its current version)',
        params: idParams,
        response: { 200: workflowSchema },
      },
    },
    async (req) => workflows.get(req.principal, req.params.id),
  );

  app.patch(
    '/workflows/:id',
    {
      config: { right: 'automation.write', docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'setWorkflowStatus',
        tags,
        summary: 'Activate, pause or archive a workflow',
        description: 'Only active workflows start runs; runs in flight go on.',
        params: idParams,
        body: patchWorkflowBody,
        response: { 200: workflowSchema },
      },
    },
    async (req) => workflows.setStatus(req.principal, req.params.id, req.body.status, who(req)),
  );

  app.put(
    '/workflows/:id/draft',
    {
      config: { right: 'automation.write', docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'saveWorkflowDraft',
        tags,
        summary: 'Save edits as a draft (what runs does not change)',
        description: `A \`draft\` workflow’s definition is replaced (it runs only by POST /workflows/trigger until activated); an active or paused one keeps its version and carries the edits as \`draft\` until POST /workflows/:id/activate. Checked like a create: 400 \`validation_error\` naming the field (\`steps.3.templateName\`) in plain words. ${STEPS}`,
        params: idParams,
        body: definitionBody,
        response: { 200: workflowSchema },
      },
    },
    async (req) => workflows.saveDraft(req.principal, req.params.id, req.body),
  );

  app.delete(
    '/workflows/:id/draft',
    {
      config: { right: 'automation.write', docs: { errors: ['not_found', 'invalid_state'] } },
      schema: {
        operationId: 'discardWorkflowDraft',
        tags,
        summary: 'Discard the pending draft of an active or paused workflow',
        params: idParams,
        response: { 200: workflowSchema },
      },
    },
    async (req) => workflows.discardDraft(req.principal, req.params.id),
  );

  app.post(
    '/workflows/:id/activate',
    {
      config: {
        right: 'automation.write',
        docs: { errors: ['not_found', 'validation_error'] },
      },
      schema: {
        operationId: 'activateWorkflow',
        tags,
        summary: 'Activate: the draft (if any) becomes the new version, and the workflow runs',
        description:
          'Runs in flight finish on the version they started with; new runs start on the new one. Recorded in the version history (who, when) and the audit trail. Already active with no draft: nothing changes.',
        params: idParams,
        response: { 200: workflowSchema },
      },
    },
    (req) => workflows.activate(req.principal, req.params.id, who(req)),
  );

  app.post(
    '/workflows/:id/deactivate',
    {
      config: { right: 'automation.write', docs: { errors: ['not_found', 'invalid_state'] } },
      schema: {
        operationId: 'deactivateWorkflow',
        tags,
        summary: 'Deactivate: the workflow is paused (runs in flight go on)',
        params: idParams,
        response: { 200: workflowSchema },
      },
    },
    (req) => workflows.deactivate(req.principal, req.params.id, who(req)),
  );

  app.post(
    '/workflows/:id/secret/rotate',
    {
      config: { right: 'automation.write', secretAnswer, docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'rotateWorkflowSecret',
        tags,
        summary:
          'Replace the signing secret of the workflow’s webhook steps; the new one is shown once',
        description: `The old secret stops signing at once: the webhook steps’ next requests (retries included) carry the new one, so update the receiver with it. The answer is the only place the new \`secret\` appears. Recorded in the audit trail (\`workflow_secret.rotated\`), without the secret. ${ONCE}`,
        params: idParams,
        response: { 200: createdWorkflowSchema },
      },
    },
    (req) => workflows.rotateSecret(req.principal, req.params.id, who(req)),
  );

  app.get(
    '/workflows/:id/versions',
    {
      config: { right: 'automation.read', docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'listWorkflowVersions',
        tags,
        summary: 'The versions that went live, newest first (who activated each, and when)',
        params: idParams,
        response: { 200: workflowVersionsSchema },
      },
    },
    async (req) => workflows.versions(req.principal, req.params.id),
  );

  app.post(
    '/workflows/:id/versions/:version/restore',
    {
      config: { right: 'automation.write', docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'restoreWorkflowVersion',
        tags,
        summary: 'Copy a version into the draft (activate to run it again)',
        params: versionParams,
        response: { 200: workflowSchema },
      },
    },
    (req) => workflows.restore(req.principal, req.params.id, req.params.version),
  );

  app.get(
    '/workflows/:id/runs',
    {
      config: { right: 'automation.read', docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'listWorkflowRuns',
        tags,
        summary: 'A workflow’s runs, newest first',
        params: idParams,
        querystring: listRunsQuery,
        response: { 200: runPage },
      },
    },
    async (req) => workflows.runs(req.principal, req.params.id, req.query),
  );

  app.post(
    '/api/events',
    {
      config: { right: 'automation.write' },
      schema: {
        operationId: 'ingestEvent',
        tags,
        summary: 'A business event (cart.abandoned, order.shipped, any name) that starts workflows',
        description:
          'Starts a run of every active workflow triggered by this event for the contact (created if new); a workflow the contact is already running is listed in `skipped`. The same `dedupeKey` within 24 h is accepted once: a repeat answers the first answer with `duplicate: true` and starts nothing.',
        body: businessEventBody,
        response: { 200: businessEventResponse },
      },
    },
    (req) => workflows.ingest(req.principal, req.body),
  );
};
