import { z } from 'zod';
import {
  KEYWORD_MATCHES,
  MAX_KEYWORD_LENGTH,
  MAX_KEYWORDS,
  RUN_OUTCOMES,
  RUN_STATUSES,
  STEP_TYPES,
  TRIGGER_STATUSES,
  TRIGGER_TYPES,
  WORKFLOW_STATUSES,
} from '../workflow-rules.ts';
import { isoDate, page, pageQuery } from './common.ts';

export { RUN_OUTCOMES, RUN_STATUSES, STEP_TYPES, TRIGGER_TYPES, WORKFLOW_STATUSES };

/**
 * What starts a workflow's runs. `event`: `POST /api/events`; `manual`: `POST /workflows/trigger`;
 * `message_received`: a customer's message (design.md §7); `conversation_status`: the
 * conversation is resolved or (re)opened; `list_reply`: a pick from the interactive list.
 */
export const triggerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('event'), event: z.string().max(100) }).strict(),
  z.object({ type: z.literal('manual') }).strict(),
  z
    .object({
      type: z.literal('message_received'),
      keywords: z
        .array(z.string().max(MAX_KEYWORD_LENGTH))
        .max(MAX_KEYWORDS)
        .optional()
        .describe(
          'none or empty: any message; else one of them must match (case and accents aside)',
        ),
      match: z
        .enum(KEYWORD_MATCHES)
        .optional()
        .describe('any (default: anywhere in the message), whole_word, exact (the whole message)'),
      firstMessageOnly: z
        .boolean()
        .optional()
        .describe('only the customer’s first message in the conversation'),
      outsideHours: z
        .boolean()
        .optional()
        .describe('only outside business hours (GET /settings/business-hours)'),
    })
    .strict(),
  z.object({ type: z.literal('conversation_status'), to: z.enum(TRIGGER_STATUSES) }).strict(),
  z.object({ type: z.literal('list_reply'), listId: z.string().max(100) }).strict(),
]);
export type Trigger = z.infer<typeof triggerSchema>;

// A step's shape is checked by its type's module in shared/workflow-steps/ (through
// workflowProblems: fields per type, references, durations, template strings), so each problem
// names its field (`steps.3.duration`); a closed union here would answer zod's words instead.
export const stepSchema = z
  .object({
    id: z.string().max(100),
    type: z.string().max(50),
    next: z.string().max(100).optional(),
  })
  .catchall(z.unknown())
  .describe(`a step: {id, type, next?, …}; type is one of ${STEP_TYPES.join(', ')}`);

export const workflowBody = z
  .object({
    name: z.string().max(1000),
    trigger: triggerSchema,
    steps: z.array(stepSchema).max(1000),
    status: z
      .enum(WORKFLOW_STATUSES)
      .optional()
      .describe('active (the default, for scripts), paused, or draft (the builder saves drafts)'),
  })
  .strict();
export type WorkflowBody = z.infer<typeof workflowBody>;

export const updateWorkflowBody = workflowBody
  .partial()
  .extend({ id: z.string().min(1).max(100) })
  .strict();
export type UpdateWorkflowBody = z.infer<typeof updateWorkflowBody>;

export const patchWorkflowBody = z.object({ status: z.enum(WORKFLOW_STATUSES) }).strict();

/** A definition as saved: name, trigger, steps. */
export const definitionBody = z
  .object({
    name: z.string().max(1000),
    trigger: triggerSchema,
    steps: z.array(stepSchema).max(1000),
  })
  .strict();
export type DefinitionBody = z.infer<typeof definitionBody>;

export const workflowDraftSchema = z
  .object({
    name: z.string(),
    trigger: triggerSchema,
    steps: z.array(z.record(z.string(), z.unknown())),
    basedOnVersion: z.number().int().describe('the version the draft was edited from'),
    updatedAt: isoDate,
  })
  .describe(
    'pending edits of an active or paused workflow, activated by POST /workflows/:id/activate; null when none (and always for a draft-status workflow, whose definition is the top level)',
  );
export type WorkflowDraft = z.infer<typeof workflowDraftSchema>;

export const workflowSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(WORKFLOW_STATUSES),
  trigger: triggerSchema,
  steps: z.array(z.record(z.string(), z.unknown())),
  version: z.number().int().describe('the version new runs start on'),
  runs: z.object({ running: z.number().int(), waiting: z.number().int() }),
  draft: workflowDraftSchema.nullable(),
  activatedAt: isoDate.nullable().describe('when it was last activated; null: never'),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type Workflow = z.infer<typeof workflowSchema>;

export const createdWorkflowSchema = workflowSchema.extend({
  secret: z.string().describe('signs the webhook steps’ requests; shown only here'),
});

export const runStepSchema = z.object({
  stepId: z.string(),
  type: z.string(),
  status: z
    .enum(['running', 'waiting', 'completed', 'failed', 'cancelled'])
    .describe('cancelled: a waiting step the run left (handed off or cancelled)'),
  startedAt: isoDate,
  endedAt: isoDate.nullable(),
  output: z
    .unknown()
    .nullable()
    .describe(
      'what the step did, as readable fields: `outcome` (sent, replied, timed_out, matched, otherwise, handed_off, …), what was sent (`text`, `templateName`, `listName`), the customer’s answer (`reply`), the branch taken and why (`goto`, `reason`); a waiting step’s `timesOutAt`',
    ),
  error: z.string().nullable(),
});

export const runSchema = z.object({
  id: z.string(),
  workflowId: z.string(),
  version: z.number().int(),
  contactId: z.string(),
  contactName: z.string().nullable(),
  phone: z.string(),
  status: z.enum(RUN_STATUSES),
  outcome: z
    .enum(RUN_OUTCOMES)
    .nullable()
    .describe(
      'how it ended: completed, timed_out (after a wait for a reply timed out), otherwise (through a branch’s otherwise), handed_off, failed, cancelled; null while running or waiting',
    ),
  currentStepId: z.string().nullable(),
  trigger: z.object({
    type: z.enum(TRIGGER_TYPES),
    event: z.string().nullable(),
    messageId: z.string().nullable().describe('the customer’s message that started it'),
  }),
  payload: z.record(z.string(), z.unknown()),
  error: z.string().nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
  endedAt: isoDate.nullable(),
});
export type WorkflowRun = z.infer<typeof runSchema>;

export const runDetailSchema = runSchema.extend({ steps: z.array(runStepSchema) });

export const triggerWorkflowBody = z
  .object({
    workflowId: z.string().min(1).max(100),
    phone: z.string().min(1).max(32).optional(),
    contactId: z.string().min(1).max(100).optional(),
    payload: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const businessEventBody = z
  .object({
    event: z.string().min(1).max(100),
    phone: z.string().min(1).max(32),
    payload: z.record(z.string(), z.unknown()).optional(),
    dedupeKey: z.string().min(1).max(200).optional(),
  })
  .strict();

export const businessEventResponse = z.object({
  id: z.string(),
  runs: z.array(z.string()),
  skipped: z.array(z.object({ workflowId: z.string(), reason: z.string() })),
  duplicate: z.boolean().describe('true when this dedupeKey was accepted in the last 24 h'),
});

export const workflowVersionSchema = z.object({
  version: z.number().int(),
  name: z.string(),
  trigger: triggerSchema,
  steps: z.array(z.record(z.string(), z.unknown())),
  activatedAt: isoDate,
  activatedBy: z
    .object({
      kind: z.enum(['member', 'api_key', 'system']),
      id: z.string().nullable(),
      name: z.string().nullable(),
    })
    .nullable()
    .describe('who activated it (null: before versions recorded it)'),
});
export type WorkflowVersion = z.infer<typeof workflowVersionSchema>;
export const workflowVersionsSchema = z.object({ data: z.array(workflowVersionSchema) });
export const versionParams = z.object({
  id: z.string().min(1).max(100),
  version: z.coerce.number().int().min(1),
});

/** The inbox's "Automation: <workflow> is talking to this customer". */
export const activeRunSchema = z
  .object({ runId: z.string(), workflowId: z.string(), workflowName: z.string() })
  .nullable()
  .describe('a workflow run talking to this customer now (running or waiting), or null');
export type ActiveRun = z.infer<typeof activeRunSchema>;

export const listRunsQuery = pageQuery.extend({ status: z.enum(RUN_STATUSES).optional() });

export const workflowPage = page(workflowSchema);
export const runPage = page(runSchema);
