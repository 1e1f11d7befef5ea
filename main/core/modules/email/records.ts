/** How the email module's rows read as API records, and the small rules its use cases share. */
import type { PlaceholderContact } from '../../../../shared/placeholders.ts';
import type { CampaignTarget } from '../../../../shared/schemas/campaigns.ts';
import type { EmailCampaign, EmailCounts, EmailMessage } from '../../../../shared/schemas/email.ts';
import type { PaceKey } from '../../pacing/governor.ts';
import type { ContactsService } from '../contacts/service.ts';
import type { Scope } from '../../runtime.ts';
import { iso, isoOrNull } from '../../runtime.ts';
import type { EmailCampaignRow, EmailMessageRow } from './repo.ts';

/** What `{{contact.*}}` reads from a contact row. */
export const toPlaceholderContact = (c: {
  name: string | null;
  phone: string | null;
  email: string | null;
  attributes: string;
}): PlaceholderContact => ({
  name: c.name,
  phone: c.phone,
  email: c.email,
  attributes: JSON.parse(c.attributes) as PlaceholderContact['attributes'],
});

/** Whom an email's placeholders are filled from: its contact, or just its address. */
export function placeholderContactOf(
  contacts: Pick<ContactsService, 'find'>,
  m: {
    workspace_id: string;
    environment: 'test' | 'live';
    contact_id: string | null;
    to_address: string;
  },
): PlaceholderContact {
  const c = m.contact_id ? contacts.find(scopeOf(m), m.contact_id) : undefined;
  return c
    ? toPlaceholderContact(c)
    : { name: null, phone: '', email: m.to_address, attributes: {} };
}

export const scopeOf = (r: { workspace_id: string; environment: 'test' | 'live' }): Scope => ({
  workspaceId: r.workspace_id,
  environment: r.environment,
});

export const countsOf = (c: EmailCampaignRow): EmailCounts => ({
  total: c.total,
  pending: c.pending,
  sent: c.sent,
  delivered: c.delivered,
  opened: c.opened,
  clicked: c.clicked,
  bounced: c.bounced,
  failed: c.failed,
  unsubscribed: c.unsubscribed,
  cancelled: c.cancelled,
});

export const toEmailCampaign = (c: EmailCampaignRow): EmailCampaign => ({
  id: c.id,
  name: c.name,
  status: c.status,
  subject: c.subject,
  fromName: c.from_name,
  fromEmail: c.from_email,
  replyTo: c.reply_to,
  html: c.html,
  markdown: c.markdown,
  text: c.text,
  audience: JSON.parse(c.audience) as CampaignTarget,
  scheduledFor: isoOrNull(c.scheduled_for),
  counts: countsOf(c),
  pauseReason: c.pause_reason as EmailCampaign['pauseReason'],
  pauseMessage: c.pause_message,
  environment: c.environment,
  createdAt: iso(c.created_at),
  updatedAt: iso(c.updated_at),
  launchedAt: isoOrNull(c.launched_at),
  completedAt: isoOrNull(c.completed_at),
});

export const toEmailMessage = (m: EmailMessageRow): EmailMessage => ({
  id: m.id,
  campaignId: m.campaign_id,
  contactId: m.contact_id,
  to: m.to_address,
  subject: m.subject,
  status: m.status,
  attempts: m.attempts,
  error: m.error_code ? { code: m.error_code, message: m.error_message ?? '' } : null,
  smtpResponse: m.smtp_response,
  sentAt: isoOrNull(m.sent_at),
  deliveredAt: isoOrNull(m.delivered_at),
  openedAt: isoOrNull(m.opened_at),
  clickedAt: isoOrNull(m.clicked_at),
  unsubscribedAt: isoOrNull(m.unsubscribed_at),
  createdAt: iso(m.created_at),
  updatedAt: iso(m.updated_at),
});

/** The governor's key of a workspace's email sends (campaigns and single sends alike). */
export const paceKey = (scope: Scope): PaceKey => ({
  accountId: `email:${scope.workspaceId}`,
  environment: scope.environment,
});
