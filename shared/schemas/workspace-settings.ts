/**
 * Workspace settings (design.md §8, README "Workspace settings"): one record an admin changes on
 * Settings → Workspace, `parley settings set` and `PATCH /api/workspace/settings` alike, in force
 * from the next request on. Retention periods are the desk's (the data folder's), set where the
 * desk runs: read here, never changed.
 */
import { z } from 'zod';

/** The most a low-balance threshold may be: a million currency units. */
export const MAX_LOW_BALANCE_THRESHOLD_MICROS = 1_000_000_000_000;

/** The most characters a workspace's or business account's name may have. */
export const DISPLAY_NAME_MAX = 80;

/**
 * A name people read in the top bar, invites and previews (the workspace's, the business
 * account's): spaces at either end dropped, then 1–80 characters on one line. The core checks a
 * PATCH body with it, Settings → Workspace each field as it is typed.
 */
export const displayNameRule = (field: string) =>
  z
    .string({ error: `${field} must be text` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(DISPLAY_NAME_MAX, `${field} must be at most ${DISPLAY_NAME_MAX} characters`)
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u001f\u007f]*$/, `${field} must be one line, without control characters`);

export const workspaceSettingsSchema = z.object({
  name: z.string().describe('the workspace’s name: the top bar, invites, the LAN announcement'),
  businessAccountName: z
    .string()
    .describe(
      'the active business account’s display name: the top bar and message previews (`businessAccount.name` of GET /api/me)',
    ),
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

export const workspaceSettingsBody = workspaceSettingsSchema
  .extend({
    name: displayNameRule('name').describe(
      'the workspace’s new name: spaces at either end dropped, then 1–80 characters',
    ),
    businessAccountName: displayNameRule('businessAccountName').describe(
      'the active business account’s new display name: spaces at either end dropped, then 1–80 characters',
    ),
  })
  .partial()
  .strict();
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
