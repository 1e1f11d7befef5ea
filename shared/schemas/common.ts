import { z } from 'zod';

export const environmentSchema = z.enum(['test', 'live']);
export type Environment = z.infer<typeof environmentSchema>;

export const isoDate = z.string().describe('ISO 8601 timestamp with offset');

/** `?limit=` (default 50, max 200) and `?cursor=` on every list (README "API"). */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(500).optional(),
});

export const page = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), nextCursor: z.string().nullable() });

export const idParams = z.object({ id: z.string().min(1).max(100) });

export const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    docs: z.string(),
    param: z.string().optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});
