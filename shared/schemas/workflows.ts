import { z } from 'zod';
import { RUN_STATUSES, STEP_TYPES, WORKFLOW_STATUSES } from '../workflow-rules.ts';
import { isoDate, page, pageQuery } from './common.ts';

export { RUN_STATUSES, STEP_TYPES, WORKFLOW_STATUSES };

export const triggerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('event'), event: z.string().max(100) }).strict(),
  z.object({ type: z.literal('manual') }).strict(),
]);

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
    status: z.enum(WORKFLOW_STATUSES).optional().describe('active (default) or paused'),
  })
  .strict();
export type WorkflowBody = z.infer<typeof workflowBody>;

export const updateWorkflowBody = workflowBody
  .partial()
  .extend({ id: z.string().min(1).max(100) })
  .strict();
export type UpdateWorkflowBody = z.infer<typeof updateWorkflowBody>;

export const patchWorkflowBody = z.object({ status: z.enum(WORKFLOW_STATUSES) }).strict();

export const workflowSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(WORKFLOW_STATUSES),
  trigger: triggerSchema,
  steps: z.array(z.record(z.string(), z.unknown())),
  version: z.number().int(),
  runs: z.object({ running: z.number().int(), waiting: z.number().int() }),
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
  status: z.enum(['running', 'waiting', 'completed', 'failed']),
  startedAt: isoDate,
  endedAt: isoDate.nullable(),
  output: z.unknown().nullable(),
  error: z.string().nullable(),
});

export const runSchema = z.object({
  id: z.string(),
  workflowId: z.string(),
  version: z.number().int(),
  contactId: z.string(),
  phone: z.string(),
  status: z.enum(RUN_STATUSES),
  currentStepId: z.string().nullable(),
  trigger: z.object({ type: z.enum(['event', 'manual']), event: z.string().nullable() }),
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

export const listRunsQuery = pageQuery.extend({ status: z.enum(RUN_STATUSES).optional() });

export const workflowPage = page(workflowSchema);
export const runPage = page(runSchema);
