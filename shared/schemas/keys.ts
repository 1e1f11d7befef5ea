import { z } from 'zod';
import { environmentSchema, isoDate } from './common.ts';

/** `svc_test_` or `svc_live_` followed by 40 base62 characters (README "API"). */
export const API_KEY_PATTERN = /^svc_(test|live)_[A-Za-z0-9]{40}$/;

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe('display prefix, e.g. svc_test_AbCd1234'),
  environment: environmentSchema,
  workspaceId: z.string(),
  createdAt: isoDate,
  lastUsedAt: isoDate.nullable(),
  revokedAt: isoDate.nullable(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export const createKeyBody = z.object({
  name: z.string().trim().min(1, 'name is required').max(100),
  environment: environmentSchema,
});
export type CreateKeyBody = z.infer<typeof createKeyBody>;

export const createdKeySchema = apiKeySchema.extend({
  key: z.string().describe('the secret key; shown exactly once'),
});
export type CreatedKey = z.infer<typeof createdKeySchema>;
