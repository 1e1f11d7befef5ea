/**
 * The email campaign editor's model: the form's draft, the checks made as the user types and
 * before a request (the core has the last word and names the field it refuses in `param`), the
 * bodies sent, and the way from an answer's `param` back to a field. The audience and the
 * schedule are the messaging campaigns' own (a group, or contacts with labels), so their part of
 * the draft and its checks are theirs.
 */
import {
  MARKDOWN_MAX,
  markdownToEmailHtml,
  type BodyFormat,
} from '../../../../shared/email-markdown.ts';
import { EMAIL_LIMITS, isEmailAddress } from '../../../../shared/email-rules.ts';
import { parsePlaceholders, PLACEHOLDER_HELP } from '../../../../shared/placeholders.ts';
import type {
  CreateEmailCampaignBody,
  EmailCampaign,
  EmailSettings,
  UpdateEmailCampaignBody,
} from '../../stores/email-api.ts';
import {
  audienceDraftOf,
  audienceProblem,
  emptyAudience,
  emptySchedule,
  scheduleDraftOf,
  targetOf,
  type AudienceDraft,
  type ScheduleDraft,
} from '../campaigns/campaign-draft.ts';
import { localIsoWithOffset } from './email-format.ts';

export interface EmailDraft extends AudienceDraft, ScheduleDraft {
  name: string;
  subject: string;
  fromName: string;
  fromEmail: string;
  replyTo: string;
  /** How the body is written: the HTML below, or the Markdown (the HTML it renders goes out). */
  format: BodyFormat;
  /** The body as HTML, when written as HTML. */
  html: string;
  /** The body as Markdown, when written as Markdown (the core keeps it and renders the html). */
  markdown: string;
  /** The plain-text alternative; empty: generated from the HTML when sent. */
  text: string;
}

export type TextField =
  'name' | 'subject' | 'fromName' | 'fromEmail' | 'replyTo' | 'html' | 'markdown' | 'text';
export type Field = TextField | 'audience' | 'scheduledFor';
export type FieldErrors = Partial<Record<Field, string>>;

/** The fields in the order they appear, to focus the first one with an error. */
export const FIELD_ORDER: readonly Field[] = [
  'name',
  'subject',
  'fromName',
  'fromEmail',
  'replyTo',
  'audience',
  'html',
  'markdown',
  'text',
  'scheduledFor',
];

export const STARTER_HTML = `<h1>Hello {{contact.name}},</h1>
<p>Write your message here. Links you add are tracked, so you can see who clicked.</p>
<p><a href="https://example.com">Visit our shop</a></p>
<p>Thanks,<br>The team</p>`;

export const STARTER_MARKDOWN = `# Hello {{contact.firstName | "there"}},

Write your message here: **bold**, *italic*, lists and [links](https://example.com) work.
Links are tracked, so you can see who clicked.

Thanks,
The team`;

/** The HTML the email goes out with: the written HTML, or what the Markdown renders to. */
export const bodyHtml = (draft: Pick<EmailDraft, 'format' | 'html' | 'markdown'>): string =>
  draft.format === 'markdown' ? markdownToEmailHtml(draft.markdown) : draft.html;

/**
 * The body written the other way. Markdown → HTML keeps what the Markdown renders (to edit as
 * HTML from then on); HTML → Markdown starts from the Markdown written before in this editor (or
 * a starter): HTML cannot be turned back into Markdown.
 */
export function switchFormat(draft: EmailDraft, format: BodyFormat): Partial<EmailDraft> {
  if (format === draft.format) return {};
  if (format === 'html') return { format, html: bodyHtml(draft) };
  return { format, markdown: draft.markdown.trim() ? draft.markdown : STARTER_MARKDOWN };
}

export const emptyEmailDraft = (settings?: EmailSettings | null): EmailDraft => ({
  name: '',
  subject: '',
  fromName: settings?.defaultFromName ?? '',
  fromEmail: settings?.defaultFromEmail ?? '',
  replyTo: '',
  format: 'html',
  html: STARTER_HTML,
  markdown: '',
  text: '',
  ...emptyAudience(),
  ...emptySchedule(),
});

export const draftFromEmailCampaign = (campaign: EmailCampaign): EmailDraft => ({
  name: campaign.name,
  subject: campaign.subject,
  fromName: campaign.fromName ?? '',
  fromEmail: campaign.fromEmail,
  replyTo: campaign.replyTo ?? '',
  format: campaign.markdown === null ? 'html' : 'markdown',
  html: campaign.html,
  markdown: campaign.markdown ?? '',
  text: campaign.text ?? '',
  ...audienceDraftOf(campaign.audience),
  ...scheduleDraftOf(campaign.scheduledFor),
});

const LIMITS: Partial<Record<TextField, number>> = {
  name: EMAIL_LIMITS.name,
  subject: EMAIL_LIMITS.subject,
  fromName: EMAIL_LIMITS.fromName,
  html: EMAIL_LIMITS.html,
  markdown: MARKDOWN_MAX,
  text: EMAIL_LIMITS.text,
};

/** The body field the draft is written in. */
export const bodyField = (draft: Pick<EmailDraft, 'format'>): 'html' | 'markdown' =>
  draft.format === 'markdown' ? 'markdown' : 'html';

export const limitOf = (field: TextField): number | undefined => LIMITS[field];

const characters = (n: number): string => `${n.toLocaleString('en-US')} characters`;

/**
 * What is wrong as the user types: a field over its limit, an unknown placeholder, an address
 * that cannot be one (once its field was left). Shown at once, and they block saving.
 */
export function liveProblems(draft: EmailDraft, left: ReadonlySet<string>): FieldErrors {
  const errors: FieldErrors = {};
  const idle = draft.format === 'markdown' ? 'html' : 'markdown';
  for (const [field, max] of Object.entries(LIMITS) as [TextField, number][]) {
    if (field !== idle && draft[field].length > max) {
      errors[field] =
        `At most ${characters(max)}: this has ${draft[field].length.toLocaleString('en-US')}.`;
    }
  }
  for (const field of ['subject', bodyField(draft), 'text'] as const) {
    if (errors[field]) continue;
    const { unknown } = parsePlaceholders(draft[field]);
    if (unknown.length > 0) {
      errors[field] = `Unknown placeholder ${unknown[0]}: use ${PLACEHOLDER_HELP}.`;
    }
  }
  for (const field of ['fromEmail', 'replyTo'] as const) {
    const value = draft[field].trim();
    if (value && left.has(field) && !isEmailAddress(value)) {
      errors[field] = 'Not an email address a server would accept (like news@example.com).';
    }
  }
  return errors;
}

interface CheckContext {
  /** Launching asks for a start time in the future too. */
  launching: boolean;
  now?: number;
}

/** Everything wrong, by field, before a request: the live problems and what is missing. */
export function checkEmailDraft(draft: EmailDraft, ctx: CheckContext): FieldErrors {
  const errors: FieldErrors = liveProblems(draft, new Set(['fromEmail', 'replyTo']));
  if (!draft.name.trim()) errors.name ??= 'Name the campaign (only you see the name).';
  if (!draft.subject.trim()) errors.subject ??= 'Write the subject line recipients see first.';
  if (!draft.fromEmail.trim()) errors.fromEmail ??= 'Enter the address the email comes from.';
  if (!draft[bodyField(draft)].trim()) errors[bodyField(draft)] ??= 'Write the email.';

  const audience = audienceProblem(draft);
  if (audience) errors.audience = audience;

  if (draft.when === 'later') {
    const at = localIsoWithOffset(draft.scheduledAt);
    if (!at) errors.scheduledFor = 'Choose the date and time to send.';
    else if (ctx.launching && Date.parse(at) <= (ctx.now ?? Date.now())) {
      errors.scheduledFor = 'That time has passed: choose a later one, or send now.';
    }
  }
  return errors;
}

export const firstField = (errors: FieldErrors): Field | null =>
  FIELD_ORDER.find((field) => errors[field] !== undefined) ?? null;

/** The field an answer's `param` names (`audience.groupId` is the audience), or null. */
export function fieldForParam(param: string | undefined): Field | null {
  if (!param) return null;
  const head = param.split('.')[0] as Field;
  return FIELD_ORDER.includes(head) ? head : null;
}

/** The DOM id of a field's input (the audience's is the campaigns' audience field's). */
export const fieldId = (field: Field): string =>
  field === 'audience' ? 'campaign-target' : `email-${field}`;

/** The content and audience as the API takes them (`scheduledFor` is set apart, by the caller). */
function contentOf(draft: EmailDraft): Omit<CreateEmailCampaignBody, 'scheduledFor'> {
  const audience = targetOf(draft);
  if (!audience) throw new Error('the draft has no audience');
  return {
    name: draft.name.trim(),
    subject: draft.subject.trim(),
    fromName: draft.fromName.trim() || null,
    fromEmail: draft.fromEmail.trim(),
    replyTo: draft.replyTo.trim() || null,
    // Markdown is kept by the core, which renders the html; HTML given alone drops a Markdown.
    ...(draft.format === 'markdown' ? { markdown: draft.markdown } : { html: draft.html }),
    text: draft.text.trim() ? draft.text : null,
    audience,
  };
}

/** The start time the draft asks for, with the user's offset; null for "when I launch it". */
export const scheduledForOf = (draft: EmailDraft): string | null =>
  draft.when === 'later' ? localIsoWithOffset(draft.scheduledAt) : null;

export const createBody = (draft: EmailDraft): CreateEmailCampaignBody => contentOf(draft);

/**
 * A saved campaign's new content. A scheduled one keeps a schedule (the new time) unless
 * `scheduledFor` is null, which makes it a draft again.
 */
export const updateBody = (
  draft: EmailDraft,
  scheduledFor: string | null,
): UpdateEmailCampaignBody => ({ ...contentOf(draft), scheduledFor });
