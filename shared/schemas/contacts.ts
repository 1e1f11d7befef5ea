import { z } from 'zod';
import { isoDate, pageQuery } from './common.ts';

export const labelSchema = z
  .string()
  .trim()
  .min(1, 'labels cannot be empty')
  .max(64, 'labels are at most 64 characters');

const attributeValue = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);

export const attributesSchema = z
  .record(z.string().min(1).max(64), attributeValue)
  .refine((a) => Object.keys(a).length <= 100, 'at most 100 attributes');

export const contactSchema = z.object({
  id: z.string(),
  phone: z.string().describe('E.164'),
  name: z.string().nullable(),
  email: z.string().nullable(),
  labels: z.array(z.string()),
  attributes: z.record(z.string(), attributeValue),
  createdAt: isoDate,
  updatedAt: isoDate,
  lastInboundAt: isoDate
    .nullable()
    .describe('last message from the contact; opens the 24 h window'),
});
export type Contact = z.infer<typeof contactSchema>;

export const listContactsQuery = pageQuery.extend({
  phone: z.string().max(32).optional(),
  label: z.string().max(64).optional(),
  group: z.string().max(100).optional(),
  q: z.string().max(200).optional(),
});

export const upsertContactBody = z.object({
  phone: z.string().min(1, 'phone is required').max(32),
  name: z.string().trim().max(200).nullable().optional(),
  email: z.email('email is not a valid address').max(320).nullable().optional(),
  labels: z.array(labelSchema).max(50).optional(),
  attributes: attributesSchema.optional(),
});
export type UpsertContactBody = z.infer<typeof upsertContactBody>;

export const patchContactBody = upsertContactBody.partial();
export type PatchContactBody = z.infer<typeof patchContactBody>;

export const importQuery = z.object({
  groupId: z.string().max(100).optional(),
});

export const importRowError = z.object({
  line: z.number().int().describe('1-based line number in the file (the header is line 1)'),
  reason: z.string(),
  param: z.string().optional(),
});
export type ImportRowError = z.infer<typeof importRowError>;

export const importResultSchema = z.object({
  total: z.number().int().describe('data rows read'),
  created: z.number().int(),
  updated: z.number().int(),
  failed: z.number().int(),
  errors: z.array(importRowError),
});
export type ImportResult = z.infer<typeof importResultSchema>;

/** Lines of the NDJSON stream answered when the client sends `Accept: application/x-ndjson`. */
export type ImportProgressLine =
  { type: 'progress'; processed: number; total: number } | ({ type: 'result' } & ImportResult);

export const groupSchema = z.object({
  id: z.string(),
  name: z.string(),
  memberCount: z.number().int(),
  createdAt: isoDate,
});
export type Group = z.infer<typeof groupSchema>;

export const createGroupBody = z.object({
  name: z.string().trim().min(1, 'name is required').max(100),
  contactIds: z.array(z.string().max(100)).max(10000).optional(),
});

export const groupMembersBody = z.object({
  contactIds: z.array(z.string().max(100)).min(1).max(10000),
});
