/**
 * Workspace settings (design.md §8, README "Workspace settings"): one record an admin changes on
 * Settings → Workspace, `parley settings set` and `PATCH /api/workspace/settings` alike, in force
 * from the next request on. Retention periods are the desk's (the data folder's), set where the
 * desk runs: read here, never changed.
 */
import { z } from 'zod';

/** The most a low-balance threshold may be: a million currency units. */
export const MAX_LOW_BALANCE_THRESHOLD_MICROS = 1_000_000_000_000;

export const workspaceSettingsSchema = z.object({
  allowPrivateWebhooks: z
    .boolean()
    .describe(
      'allow webhook, workflow and SMTP targets on loopback or private networks (default off)',
    ),
  lowBalanceThresholdMicros: z
    .number()
    .int()
    .min(0)
    .max(MAX_LOW_BALANCE_THRESHOLD_MICROS)
    .describe(
      'wallet.low_balance fires when a charge crosses it; the desk warns while the balance is under it',
    ),
  autoAssign: z
    .boolean()
    .describe(
      'a customer message to an unassigned conversation assigns it round-robin to an online agent under capacity (default off)',
    ),
  assignOnFirstReply: z
    .boolean()
    .describe('a member’s reply to an unassigned conversation assigns it to them (default on)'),
  publicUrl: z
    .url({ protocol: /^https?$/, message: 'publicUrl must be an http(s) URL' })
    .max(500)
    .nullable()
    .describe(
      'where customers and Meta reach this desk from the internet (https://desk.example.com): email tracking and unsubscribe links use it unless Email settings give their own; null: this machine’s address',
    ),
});
export type WorkspaceSettings = z.infer<typeof workspaceSettingsSchema>;

export const workspaceSettingsBody = workspaceSettingsSchema.partial().strict();
export type WorkspaceSettingsBody = z.infer<typeof workspaceSettingsBody>;

/** What only grows, each kept its own number of days (README "Retention"). */
export const RETENTION_KINDS = [
  'events',
  'deliveries',
  'deadJobs',
  'businessEvents',
  'workflowRuns',
  'emailBodies',
  'webhookRejects',
  'media',
] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

export const retentionSchema = z.object({
  data: z.array(
    z.object({
      kind: z.enum(RETENTION_KINDS),
      days: z.number().describe('kept this many days'),
      defaultDays: z.number(),
      variable: z.string().describe('the environment variable that sets it where the desk runs'),
      minDays: z.number(),
    }),
  ),
  fixed: z
    .array(z.object({ what: z.string(), days: z.number() }))
    .describe('what is kept a fixed time, whatever the settings'),
});
export type Retention = z.infer<typeof retentionSchema>;
