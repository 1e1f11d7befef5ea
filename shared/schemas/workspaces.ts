import { z } from 'zod';
import { RIGHTS, ROLES } from '../permissions.ts';
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
});
export type Me = z.infer<typeof meSchema>;
