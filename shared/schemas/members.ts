import { z } from 'zod';
import { PASSWORD_MAX } from '../passwords.ts';
import { ASSIGNABLE_ROLES, GRANTS, MEMBER_ROLES } from '../permissions.ts';
import { isoDate } from './common.ts';

/** A member of the workspace (design.md §6): a person who is assigned work and may sign in. */
export const memberSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable().describe('null for the desktop owner until they set one'),
  role: z.enum(MEMBER_ROLES),
  rights: z.array(z.enum(GRANTS)).describe('extra rights an admin granted (agents only)'),
  active: z.boolean().describe('false once deactivated: no sign-in, not assignable'),
  canSignIn: z.boolean().describe('has a password (accepted an invite, or set one)'),
  createdAt: isoDate,
  lastSeenAt: isoDate.nullable().describe('the newest activity of any of their sessions'),
});
export type Member = z.infer<typeof memberSchema>;

const email = z.email('email is not a valid address').max(320);
const name = z.string().trim().min(1, 'name is required').max(100);
const password = z.string().max(PASSWORD_MAX + 1);

export const inviteBody = z.object({
  email,
  name,
  role: z.enum(ASSIGNABLE_ROLES),
  rights: z.array(z.enum(GRANTS)).max(GRANTS.length).optional(),
});

export const inviteSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ASSIGNABLE_ROLES),
  rights: z.array(z.enum(GRANTS)),
  invitedBy: z.string().nullable().describe('the inviting member’s name'),
  createdAt: isoDate,
  expiresAt: isoDate,
});
export type Invite = z.infer<typeof inviteSchema>;

export const createdInviteSchema = z.object({
  invite: inviteSchema,
  inviteUrl: z
    .string()
    .describe('the one-use link to hand to the invitee (also emailed when SMTP is set up)'),
  expiresAt: isoDate,
  emailed: z.boolean().describe('true when the link was sent by email'),
});
export type CreatedInvite = z.infer<typeof createdInviteSchema>;

export const inviteTokenBody = z.object({ token: z.string().min(1).max(200) });

/** What the join page shows before the invitee accepts. */
export const invitePreviewSchema = z.object({
  workspace: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ASSIGNABLE_ROLES),
  invitedBy: z.string().nullable(),
  expiresAt: isoDate,
});
export type InvitePreview = z.infer<typeof invitePreviewSchema>;

export const acceptInviteBody = z.object({ token: z.string().min(1).max(200), name, password });

export const loginBody = z.object({
  email,
  password,
  workspaceId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('only when the address is a member of more than one workspace'),
});

export const updateMemberBody = z
  .object({
    name: name.optional(),
    role: z.enum(ASSIGNABLE_ROLES).optional(),
    rights: z.array(z.enum(GRANTS)).max(GRANTS.length).optional(),
    active: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'send at least one of name, role, rights, active');

export const updateMeBody = z
  .object({ name: name.optional(), email: email.optional() })
  .refine((b) => Object.keys(b).length > 0, 'send name or email');

export const changePasswordBody = z.object({
  currentPassword: password.optional().describe('required once a password is set'),
  password,
});

export const sessionSchema = z.object({
  id: z.string(),
  memberId: z.string(),
  device: z.string().describe('from the browser’s User-Agent'),
  address: z.string().describe('the client address it signed in from'),
  createdAt: isoDate,
  lastSeenAt: isoDate,
  expiresAt: isoDate.describe('when it ends unless used again (12 h idle, 30 days in all)'),
  current: z.boolean().describe('the session making this request'),
});
export type Session = z.infer<typeof sessionSchema>;

export const sessionsQuery = z.object({
  memberId: z.string().min(1).max(100).optional().describe('another member’s (admins)'),
});

export const AUDIT_ACTOR_KINDS = ['member', 'api_key', 'cli', 'system', 'anonymous'] as const;

export const auditEntrySchema = z.object({
  id: z.string(),
  actor: z.object({
    kind: z.enum(AUDIT_ACTOR_KINDS),
    id: z.string().nullable(),
    name: z
      .string()
      .nullable()
      .describe('the member’s name, the key’s prefix, or the address tried'),
  }),
  action: z.string().describe('e.g. session.sign_in, member.invited, api_key.created'),
  target: z
    .object({ type: z.string(), id: z.string().nullable(), label: z.string().nullable() })
    .nullable(),
  address: z.string().nullable().describe('the client address, when over HTTP'),
  details: z.record(z.string(), z.unknown()),
  createdAt: isoDate,
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditQuery = z.object({
  actor: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('a member id, an API key id, or `cli`/`system`'),
  action: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('an action, or a family with a trailing dot (`member.`)'),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
});
