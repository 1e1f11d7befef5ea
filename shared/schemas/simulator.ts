import { z } from 'zod';

export const simulatorSettingsSchema = z.object({
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1),
  reviewDelayMs: z.number().int().min(0).max(86_400_000),
  approvalWaitMs: z
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .describe("live templates' post-approval wait"),
  deliveryLatencyMs: z.number().int().min(0).max(3_600_000),
  readLatencyMs: z.number().int().min(0).max(86_400_000),
  messagingTier: z.number().int().positive().nullable().describe('null = unlimited'),
  throughputMps: z.number().int().min(1).max(1000),
  emailRatePerSecond: z.number().int().min(1).max(10_000),
});
export type SimulatorSettings = z.infer<typeof simulatorSettingsSchema>;
export const simulatorSettingsPatch = simulatorSettingsSchema.partial();

export const inboundBody = z.object({
  phone: z.string().min(1).max(32),
  message: z.string().min(1).max(4096).optional(),
  listReply: z.object({ listId: z.string(), rowId: z.string() }).optional(),
  receivedAt: z.iso.datetime({ offset: true }).optional().describe('may be in the past'),
});

export const reviewBody = z.object({
  decision: z.enum(['approve', 'reject', 'pause', 'disable']),
  reason: z.string().max(500).optional(),
});
