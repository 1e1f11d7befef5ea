/**
 * The "… is sending" notice a launch, start or resume leaves, and its end: once the campaign's
 * page sees the campaign no longer sending, the notice goes (a completed campaign says so
 * instead), so it never contradicts the page's own state.
 */
import { useEffect, useRef } from 'react';
import { notify, useToasts } from '../../stores/toasts.ts';

export const sendingNotice = (name: string): string => `“${name}” is sending.`;
export const sendingAgainNotice = (name: string): string => `“${name}” is sending again.`;
export const finishedNotice = (name: string): string => `“${name}” has finished sending.`;

/** Takes away the campaign's sending notices when it is not sending; true when one was shown. */
function endSendingNotices(name: string): boolean {
  const words = new Set([sendingNotice(name), sendingAgainNotice(name)]);
  const { toasts, dismiss } = useToasts.getState();
  const shown = toasts.filter((t) => t.kind === 'success' && words.has(t.message));
  for (const t of shown) dismiss(t.id);
  return shown.length > 0;
}

/**
 * On a campaign's page: its "is sending" notice lasts only while the campaign is sending, and a
 * campaign seen to finish (on the page, or while its notice still showed) says so.
 */
export function useSendingNoticeEnds(
  campaign: { id: string; name: string; status: string } | null,
): void {
  const seen = useRef<{ id: string; status: string } | null>(null);
  const id = campaign?.id;
  const name = campaign?.name;
  const status = campaign?.status;
  useEffect(() => {
    const before = seen.current;
    if (id === undefined || name === undefined || status === undefined) return;
    seen.current = { id, status };
    // Scheduled: the launch said "scheduled for …", not "is sending"; nothing to end.
    if (status === 'sending' || status === 'scheduled') return;
    const hadNotice = endSendingNotices(name);
    const watchedItFinish = before?.id === id && before.status === 'sending';
    if (status === 'completed' && (hadNotice || watchedItFinish)) {
      notify('success', finishedNotice(name));
    }
  }, [id, name, status]);
}
