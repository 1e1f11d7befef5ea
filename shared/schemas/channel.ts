import { z } from 'zod';
import { isoDate } from './common.ts';

/**
 * What a connection check found, classified (README "Connecting WhatsApp"): never the peer's own bytes, so a
 * setting that aims the core at a host cannot read another service's banner back.
 */
export const CHECK_OUTCOMES = [
  'connected',
  'auth_failed',
  'tls_failed',
  'unreachable',
  'not_graph',
] as const;
export type CheckOutcome = (typeof CHECK_OUTCOMES)[number];

/** `PUT /api/channel` (README "Connecting WhatsApp"): fields left out keep their values; secrets are write-only. */
export const channelSettingsBody = z
  .object({
    provider: z.enum(['simulated', 'cloud_api']).optional(),
    phoneNumberId: z
      .string()
      .trim()
      .regex(/^\d{5,30}$/, 'phoneNumberId is the number id Meta shows (digits)')
      .nullable()
      .optional(),
    wabaId: z
      .string()
      .trim()
      .regex(/^\d{5,30}$/, 'wabaId is the WhatsApp Business Account id (digits)')
      .nullable()
      .optional(),
    accessToken: z.string().trim().min(20).max(2048).nullable().optional().describe('write-only'),
    appSecret: z.string().trim().min(8).max(256).nullable().optional().describe('write-only'),
    verifyToken: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9._~-]{8,128}$/, 'verifyToken is 8–128 letters, digits or . _ ~ -')
      .optional(),
    graphBaseUrl: z
      .url({ protocol: /^https?$/, message: 'graphBaseUrl must be an http(s) URL' })
      .max(300)
      .nullable()
      .optional()
      .describe('defaults to https://graph.facebook.com/v21.0; tests point it at a local fake'),
  })
  .strict();
export type ChannelSettingsBody = z.infer<typeof channelSettingsBody>;

export const channelSettingsSchema = z.object({
  provider: z.enum(['simulated', 'cloud_api']),
  connected: z.boolean().describe('cloud_api with every credential set: live sends use it'),
  phoneNumberId: z.string().nullable(),
  wabaId: z.string().nullable(),
  accessTokenSet: z.boolean(),
  appSecretSet: z.boolean(),
  verifyToken: z.string().describe('paste into Meta’s webhook settings'),
  graphBaseUrl: z.string(),
  webhookPath: z.string().describe('the callback path; prefix it with this desk’s public URL'),
  number: z
    .object({
      displayPhoneNumber: z.string().nullable(),
      verifiedName: z.string().nullable(),
      qualityRating: z.string().nullable(),
      messagingTier: z.number().int().nullable(),
      throughputMps: z.number().int().nullable(),
    })
    .nullable()
    .describe('what the provider said on the last check'),
  lastCheck: z
    .object({
      at: isoDate,
      ok: z.boolean(),
      outcome: z.enum(CHECK_OUTCOMES),
      message: z
        .string()
        .describe(
          "in plain words; quotes the provider's own answer only when the host is Meta's Graph API",
        ),
    })
    .nullable(),
  phoneNumberProved: z
    .boolean()
    .describe(
      'this account proved the number is its own (a signed webhook, or a check against Meta’s host): no other account can take it',
    ),
  environment: z.enum(['test', 'live']),
  updatedAt: isoDate,
});
export type ChannelSettings = z.infer<typeof channelSettingsSchema>;

/** One item of a webhook delivery that could not be read (README "Connecting WhatsApp"), kept as it came. */
export const webhookRejectSchema = z.object({
  id: z.string(),
  kind: z.enum(['message', 'status', 'template', 'change']),
  reason: z.string(),
  raw: z.string().describe('the item’s JSON as Meta sent it (at most 64 KiB)'),
  receivedAt: isoDate,
});
export type WebhookReject = z.infer<typeof webhookRejectSchema>;
