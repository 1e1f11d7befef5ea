import { z } from 'zod';
import { GRANTS, MEMBER_ROLES, RIGHTS, ROLES } from '../permissions.ts';
import { environmentSchema, isoDate } from './common.ts';

export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: isoDate,
});
export type Workspace = z.infer<typeof workspaceSchema>;

export const businessAccountSchema = z.object({
  id: z.string(),
  name: z.string(),
  active: z.boolean(),
  messagingTier: z
    .number()
    .int()
    .nullable()
    .describe('unique recipients per rolling 24 h; null = unlimited'),
  throughputMps: z.number().int(),
});
export type BusinessAccount = z.infer<typeof businessAccountSchema>;

export const meSchema = z.object({
  workspace: workspaceSchema,
  environment: environmentSchema,
  auth: z.enum(['session', 'api_key']),
  keyPrefix: z.string().nullable(),
  businessAccount: businessAccountSchema,
  role: z.enum(ROLES).describe('the caller’s row of the permission matrix'),
  rights: z
    .array(z.enum(RIGHTS))
    .describe('what the caller may do in this environment (the UI hides or disables the rest)'),
  grants: z.array(z.enum(GRANTS)).describe('extra rights an admin granted the signed-in agent'),
  member: z
    .object({
      id: z.string(),
      name: z.string(),
      email: z.string().nullable(),
      role: z.enum(MEMBER_ROLES),
      canSignIn: z.boolean().describe('has a password'),
    })
    .nullable()
    .describe(
      'the signed-in member (the desktop window is the workspace’s owner); null for an API key',
    ),
  sessionId: z
    .string()
    .nullable()
    .describe('the browser session (null for the desktop window and API keys)'),
});
export type Me = z.infer<typeof meSchema>;
