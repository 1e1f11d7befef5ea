import { EVENT_TYPES, type EventType } from '../../../../shared/schemas/events.ts';
import type { DeliveryStatus } from '../../../../shared/schemas/webhooks.ts';

export const DELIVERY_STATUS_LABELS: Record<DeliveryStatus, string> = {
  pending: 'Pending',
  succeeded: 'Succeeded',
  failed: 'Failed',
};

/** What each event means to the owner; a type without words here shows its name alone. */
const EVENT_WORDS: Readonly<Partial<Record<string, string>>> = {
  'message.received': 'A customer wrote in',
  'message.sent': 'A message was handed to the channel',
  'message.delivered': 'A message reached the customer’s phone',
  'message.read': 'The customer read a message',
  'message.failed': 'A message could not be delivered',
  'message.note': 'A teammate left a private note',
  'message.reaction': 'Someone reacted to a message',
  'message.media_ready': 'A customer’s file was downloaded',
  'message.media_failed': 'A customer’s file could not be downloaded',
  'conversation.created': 'A new conversation started',
  'conversation.updated': 'A conversation’s status, assignee or labels changed',
  'template.status_updated': 'A template was approved, rejected or paused',
  'campaign.status_updated': 'A campaign was launched, paused or finished',
  'campaign.progress': 'A sending campaign’s numbers (at most once a second)',
  'workflow.run.started': 'A workflow run started',
  'workflow.run.step': 'A workflow run went through a step',
  'workflow.run.completed': 'A workflow run finished',
  'workflow.run.failed': 'A workflow run failed',
  'workflow.run.handed_off': 'A workflow run handed the conversation to a person',
  'email_campaign.status_updated': 'An email campaign was launched, paused or finished',
  'email_campaign.progress': 'A sending email campaign’s numbers',
  'email.unsubscribed': 'A recipient unsubscribed from email',
  'email.resubscribed': 'A recipient subscribed to email again',
  'wallet.low_balance': 'The wallet ran low',
};

export const eventWords = (type: string): string | undefined => EVENT_WORDS[type];

/** The event types in groups, as the picker offers them (by the part before the first dot). */
export interface EventGroup {
  key: string;
  label: string;
  types: EventType[];
}

const GROUP_LABELS: Readonly<Partial<Record<string, string>>> = {
  message: 'Messages',
  conversation: 'Conversations',
  template: 'Templates',
  campaign: 'Campaigns',
  workflow: 'Workflows',
  email_campaign: 'Email campaigns',
  email: 'Email subscriptions',
  wallet: 'Wallet',
};

export const EVENT_GROUPS: readonly EventGroup[] = (() => {
  const groups = new Map<string, EventGroup>();
  for (const type of EVENT_TYPES) {
    const key = type.slice(0, type.indexOf('.'));
    let group = groups.get(key);
    if (!group) {
      group = { key, label: GROUP_LABELS[key] ?? key, types: [] };
      groups.set(key, group);
    }
    group.types.push(type);
  }
  return [...groups.values()];
})();

/** The core's message as a sentence: a capital first, a full stop last. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

/** "in 25 s", "in 4 min", "in 2 h", or a date further away; "now" once it is due. */
export function untilWords(iso: string, now: number): string {
  const ms = Date.parse(iso) - now;
  if (ms <= 1000) return 'now';
  const s = Math.round(ms / 1000);
  if (s < 60) return `in ${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `in ${min} min`;
  const h = Math.round(min / 60);
  if (h < 24) return `in ${h} h`;
  return `in ${Math.round(h / 24)} d`;
}

/** "12 s ago", "4 min ago", "2 h ago", "3 d ago"; "just now" under 2 s. */
export function agoWords(iso: string, now: number): string {
  const s = Math.round((now - Date.parse(iso)) / 1000);
  if (s < 2) return 'just now';
  if (s < 60) return `${s} s ago`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.round(min / 60);
  if (h < 24) return `${h} h ago`;
  return `${Math.round(h / 24)} d ago`;
}

/**
 * An answer's body as it reads best: JSON indented (whole answers only: a cut one is not JSON),
 * anything else as it came.
 */
export function readableBody(excerpt: string, truncated: boolean): string {
  if (!truncated) {
    const trimmed = excerpt.trim();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        return JSON.stringify(JSON.parse(trimmed), null, 2);
      } catch {
        // Not JSON after all: as it came.
      }
    }
  }
  return excerpt;
}

/** The first line of an answer, its spaces folded, cut to `max` characters. */
export function firstLine(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
