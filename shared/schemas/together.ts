import { z } from 'zod';
import { CAPACITY_MAX } from '../capacity.ts';
import { MEMBER_ROLES } from '../permissions.ts';
import { isoDate } from './common.ts';
import { PRESENCE_STATUSES } from './events.ts';

/** Working together (design.md §6): presence, who is viewing, the admin's view of the team. */

export const presenceStatusSchema = z
  .enum(PRESENCE_STATUSES)
  .describe(
    'online: an event stream open and input in the last 5 minutes; away: streams open, no input; offline: no stream open',
  );

export const presenceReportBody = z.object({
  state: z
    .enum(['active', 'idle'])
    .describe(
      'active: the person used this window (send at most once a minute while they do); idle: no input for a while, or the window was hidden',
    ),
});

export const presenceReportSchema = z.object({
  memberId: z.string(),
  status: presenceStatusSchema.describe('the caller’s status after this report'),
});

export const memberPresenceSchema = z.object({
  memberId: z.string(),
  status: presenceStatusSchema,
  lastActiveAt: isoDate
    .nullable()
    .describe('the last input this server saw from them since it started (null: none)'),
});
export type MemberPresence = z.infer<typeof memberPresenceSchema>;

export const presenceListSchema = z.object({
  data: z.array(memberPresenceSchema),
  nextCursor: z.null(),
});

export const viewerSchema = z.object({
  memberId: z.string(),
  name: z.string(),
  typing: z.boolean().describe('they also typed in it in the last 6 s'),
  lastSeenAt: isoDate.describe('their latest viewing or typing signal'),
});
export type Viewer = z.infer<typeof viewerSchema>;

export const viewersSchema = z.object({ data: z.array(viewerSchema), nextCursor: z.null() });

export { CAPACITY_MAX, DEFAULT_CAPACITY } from '../capacity.ts';

export const teamAgentSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  role: z.enum(MEMBER_ROLES),
  active: z.boolean().describe('false once deactivated (they may still hold conversations)'),
  status: presenceStatusSchema,
  capacity: z
    .number()
    .int()
    .describe('open conversations auto-assignment gives them at most (agents only; 0: none)'),
  autoAssignable: z
    .boolean()
    .describe('takes turns in auto-assignment: an active agent with capacity above 0'),
  conversations: z
    .object({
      open: z.number().int().describe('what capacity counts'),
      pending: z.number().int(),
      snoozed: z.number().int(),
    })
    .describe('the conversations assigned to them in this environment, by status (resolved aside)'),
});
export type TeamAgent = z.infer<typeof teamAgentSchema>;

export const teamAgentsSchema = z.object({ data: z.array(teamAgentSchema), nextCursor: z.null() });

export const updateTeamAgentBody = z.object({
  capacity: z.number().int().min(0).max(CAPACITY_MAX),
});

export const reassignBody = z.object({
  to: z
    .string()
    .min(1)
    .max(100)
    .describe(
      'a member id, `unassigned`, or `round_robin` (online agents under capacity, in turn; the rest unassigned)',
    ),
});

export const reassignResultSchema = z.object({
  moved: z.number().int().describe('conversations that changed hands'),
  unassigned: z.number().int().describe('of those, how many were left unassigned'),
  conversations: z.array(
    z.object({ id: z.string(), assignee: z.string().nullable().describe('member id, or null') }),
  ),
});
export type ReassignResult = z.infer<typeof reassignResultSchema>;
