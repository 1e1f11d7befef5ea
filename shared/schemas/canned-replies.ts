import { z } from 'zod';
import { CANNED_TEXT_MAX, SHORTCUT_PATTERN, SHORTCUT_RULE } from '../canned-replies.ts';
import { PLACEHOLDER_HELP } from '../placeholders.ts';
import { isoDate, pageQuery } from './common.ts';

export const cannedReplySchema = z.object({
  id: z.string(),
  shortcut: z.string().describe('unique in the scope; typed after `/` in the composer'),
  text: z.string().describe(`may use ${PLACEHOLDER_HELP}`),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type CannedReply = z.infer<typeof cannedReplySchema>;

export const cannedReplyBody = z.object({
  shortcut: z.string().regex(SHORTCUT_PATTERN, SHORTCUT_RULE),
  text: z
    .string()
    .min(1, 'text is required')
    .max(CANNED_TEXT_MAX, `text is at most ${CANNED_TEXT_MAX} characters`)
    .refine((t) => t.trim().length > 0, 'text is required')
    .describe(`the reply; may use ${PLACEHOLDER_HELP}, filled from the contact on insert`),
});
export type CannedReplyBody = z.infer<typeof cannedReplyBody>;

export const listCannedRepliesQuery = pageQuery.extend({
  q: z.string().max(200).optional().describe('part of the shortcut or the text'),
});
