import { z } from 'zod';
import { locationSchema, MEDIA_TYPES } from './media.ts';

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

/**
 * A business account's messaging tiers (design.md §4): unique recipients contacted outside a
 * service window per rolling 24 h; null is unlimited. New accounts start at 2,000.
 */
export const MESSAGING_TIERS = [250, 2000, 10_000, 100_000, null] as const;

/**
 * The simulator's settings before anything was changed (design.md §4), for the core and for
 * Settings → Simulator's "Reset to defaults". The tier and throughput are a new account's.
 */
export const SIMULATOR_DEFAULTS: SimulatorSettings = {
  seed: 42,
  reviewDelayMs: 2000,
  approvalWaitMs: 600_000,
  deliveryLatencyMs: 800,
  readLatencyMs: 2500,
  messagingTier: 2000,
  throughputMps: 80,
  emailRatePerSecond: 50,
};

export const inboundBody = z.object({
  phone: z.string().min(1).max(32),
  message: z.string().min(1).max(4096).optional(),
  listReply: z.object({ listId: z.string(), rowId: z.string() }).optional(),
  media: z
    .object({
      type: z.enum(MEDIA_TYPES),
      caption: z.string().max(1024).optional().describe('images, videos and documents'),
      fileName: z.string().max(240).optional().describe('a document’s name'),
    })
    .optional()
    .describe(
      'the customer sends one of the bundled sample files (a PNG photo, an Opus voice note, an MP4 video, a PDF, a WebP sticker)',
    ),
  location: locationSchema.optional(),
  contacts: z
    .array(
      z.object({
        name: z.string().min(1).max(200),
        phones: z.array(z.string().min(1).max(40)).max(5).default([]),
        emails: z.array(z.string().min(1).max(320)).max(5).default([]),
        organization: z.string().max(200).optional(),
      }),
    )
    .min(1)
    .max(10)
    .optional()
    .describe('shared contact cards'),
  replyToMessageId: z
    .string()
    .max(100)
    .optional()
    .describe('the customer quotes one of the conversation’s messages (our id)'),
  receivedAt: z.iso.datetime({ offset: true }).optional().describe('may be in the past'),
});

export const reviewBody = z.object({
  decision: z.enum(['approve', 'reject', 'pause', 'disable']),
  reason: z.string().max(500).optional(),
});
