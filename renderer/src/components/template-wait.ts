/**
 * A live template is approved first and sendable a few minutes later (README "API").
 * These say when, in the agent's local time; the API's own messages carry UTC.
 */
import { ApiRequestError } from '../api/client.ts';
import { formatClock, formatDateTime } from './format.ts';

/**
 * When a template inside its post-approval wait can be sent, in the agent's local time: "14:25"
 * today, with the date otherwise.
 */
export function sendableFrom(usableAt: string, now = Date.now()): string {
  const at = new Date(usableAt);
  return at.toDateString() === new Date(now).toDateString()
    ? formatClock(at)
    : formatDateTime(usableAt);
}

/**
 * A send refused because the template is still inside its post-approval wait, said in local
 * time (the API's message carries UTC); null for any other failure.
 */
export function templateNotReadyMessage(e: unknown): string | null {
  if (!(e instanceof ApiRequestError) || e.code !== 'template_not_ready') return null;
  const usableAt = e.details?.usableAt;
  if (typeof usableAt !== 'string' || Number.isNaN(Date.parse(usableAt))) {
    return 'This template was approved moments ago and cannot be sent yet. Try again in a few minutes.';
  }
  return `This template is sendable from ${sendableFrom(usableAt)}: newly approved templates wait a few minutes before they can be sent.`;
}
