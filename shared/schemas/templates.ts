import { z } from 'zod';
import { TEMPLATE_CATEGORIES, TEMPLATE_LANGUAGE_PATTERN } from '../template-rules.ts';
import { isoDate, pageQuery } from './common.ts';

export { TEMPLATE_CATEGORIES };
export const TEMPLATE_STATUSES = ['PENDING', 'APPROVED', 'REJECTED', 'PAUSED', 'DISABLED'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

export const buttonSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('QUICK_REPLY'), text: z.string() }),
  z.object({ type: z.literal('URL'), text: z.string(), url: z.string() }),
  z.object({ type: z.literal('PHONE_NUMBER'), text: z.string(), phoneNumber: z.string() }),
  z.object({ type: z.literal('COPY_CODE'), text: z.string(), example: z.string().optional() }),
]);
export type TemplateButton = z.infer<typeof buttonSchema>;

/**
 * Components as the spec writes them (`type`, `format`, `text`), plus BUTTONS with `buttons`.
 * The shape is checked here; the rules (lengths, variables, button counts, shared/template-rules.ts)
 * in the core, so each error names its field, e.g. `components.1.text`.
 */
export const componentSchema = z.object({
  type: z.enum(['HEADER', 'BODY', 'FOOTER', 'BUTTONS']),
  format: z.enum(['TEXT']).optional(),
  text: z.string().optional(),
  buttons: z.array(buttonSchema).optional(),
});
export type TemplateComponent = z.infer<typeof componentSchema>;

export const createTemplateBody = z.object({
  name: z.string(),
  category: z.enum(TEMPLATE_CATEGORIES),
  language: z
    .string()
    .regex(TEMPLATE_LANGUAGE_PATTERN, 'language must be a code such as en, hi, es or pt_BR'),
  components: z.array(componentSchema).min(1, 'components must include a BODY'),
});
export type CreateTemplateBody = z.infer<typeof createTemplateBody>;

export const editTemplateBody = createTemplateBody
  .omit({ name: true })
  .partial({ category: true, language: true });
export type EditTemplateBody = z.infer<typeof editTemplateBody>;

export const templateSchema = z.object({
  id: z.string(),
  name: z.string(),
  category: z.enum(TEMPLATE_CATEGORIES),
  language: z.string(),
  status: z.enum(TEMPLATE_STATUSES),
  components: z.array(componentSchema),
  variableCount: z.number().int().describe('placeholders {{1}}…{{n}} across header and body'),
  rejectionReason: z.string().nullable(),
  approvedAt: isoDate.nullable(),
  usableAt: isoDate.nullable().describe('when an approved template can be sent through the API'),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type Template = z.infer<typeof templateSchema>;

export const createTemplateResponse = z.object({
  success: z.literal(true),
  template: templateSchema,
});

export const listTemplatesQuery = pageQuery.extend({
  status: z.enum(TEMPLATE_STATUSES).optional(),
  name: z.string().max(512).optional(),
});

export const syncResponse = z.object({
  success: z.literal(true),
  reviewed: z.number().int().describe('pending reviews the provider completed during the sync'),
  templates: z.array(templateSchema),
});
