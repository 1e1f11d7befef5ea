import { z } from 'zod';
import { LIST_LIMITS } from '../list-rules.ts';
import { isoDate, page } from './common.ts';

export { LIST_LIMITS };

// Shapes only: the limits (lengths, counts, unique row ids) are shared/list-rules.ts, checked by
// the core so each error names its field and too many sections or rows is `list_limits_exceeded`
// (however many: the 1 MiB body limit bounds the arrays).
const bounded = z.string().max(4096);

export const listRowSchema = z.object({
  id: bounded.describe(`unique in the list, ≤ ${LIST_LIMITS.rowId}`),
  title: bounded.describe(`≤ ${LIST_LIMITS.rowTitle}`),
  description: bounded.nullable().optional().describe(`≤ ${LIST_LIMITS.rowDescription}`),
});

export const listSectionSchema = z.object({
  title: bounded.describe(`≤ ${LIST_LIMITS.sectionTitle}`),
  rows: z.array(listRowSchema).describe(`≤ ${LIST_LIMITS.rowsPerSection} rows`),
});

export const listContentSchema = z.object({
  name: bounded.describe(`how the team finds it, ≤ ${LIST_LIMITS.name}`),
  header: bounded.nullable().optional().describe(`≤ ${LIST_LIMITS.header}`),
  body: bounded.describe(`≤ ${LIST_LIMITS.body}`),
  footer: bounded.nullable().optional().describe(`≤ ${LIST_LIMITS.footer}`),
  buttonText: bounded.describe(`the button that opens the list, ≤ ${LIST_LIMITS.buttonText}`),
  sections: z.array(listSectionSchema).describe(`≤ ${LIST_LIMITS.sections} sections`),
});
export type ListContentBody = z.infer<typeof listContentSchema>;

export const createListBody = listContentSchema.strict();
export const updateListBody = listContentSchema
  .partial()
  .extend({ id: z.string().min(1).max(100) })
  .strict();
export type UpdateListBody = z.infer<typeof updateListBody>;

export const interactiveListSchema = z.object({
  id: z.string(),
  name: z.string(),
  header: z.string().nullable(),
  body: z.string(),
  footer: z.string().nullable(),
  buttonText: z.string(),
  sections: z.array(
    z.object({
      title: z.string(),
      rows: z.array(
        z.object({ id: z.string(), title: z.string(), description: z.string().nullable() }),
      ),
    }),
  ),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type InteractiveList = z.infer<typeof interactiveListSchema>;

export const listPage = page(interactiveListSchema);

/** What an inbound pick carries: the list, the row and the row's title as the person saw it. */
export const listReplySchema = z.object({
  listId: z.string(),
  rowId: z.string(),
  title: z.string(),
});
export type ListReply = z.infer<typeof listReplySchema>;

export const sendListBody = z.object({
  phone: z.string().min(1, 'phone is required').max(32),
  listId: z.string().min(1, 'listId is required').max(100),
});

export const sendListResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  data: z.object({
    messageId: z.string(),
    channelMessageId: z.string().nullable(),
    phone: z.string(),
    listId: z.string(),
    contactId: z.string(),
    conversationId: z.string(),
    wabaId: z.string(),
  }),
});

export const deleteListQuery = z.object({ id: z.string().min(1).max(100).optional() });
export const deleteListBody = z
  .object({ id: z.string().min(1).max(100) })
  .strict()
  .nullish();
