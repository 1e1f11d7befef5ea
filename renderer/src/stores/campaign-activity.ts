/**
 * The desk's stream takes campaigns as a summary (`GET /events?campaigns=summary`, see
 * api/events.ts): a campaign's thousands of per-recipient events a second (its sends, their
 * statuses, the conversations they create or move) never reach it, and its `campaign.progress`
 * (at most once a second while it sends) and `campaign.status_updated` say that it moved. What
 * a campaign may have changed on screen — the inbox's first page, an open thread — is read again
 * on that, at most once every `EVERY_MS` and once more after the last word.
 */
import { events } from '../api/events.ts';

export const CAMPAIGN_REFRESH_EVERY_MS = 3_000;

/** Calls `refresh` when a campaign moves: at once, then at most once every 3 s (trailing). */
export function onCampaignActivity(refresh: () => void): () => void {
  let last = -Infinity;
  let timer: number | null = null;
  const fire = () => {
    timer = null;
    last = performance.now();
    refresh();
  };
  const unsubscribe = events.subscribe(['campaign.progress', 'campaign.status_updated'], () => {
    if (timer !== null) return;
    const wait = last + CAMPAIGN_REFRESH_EVERY_MS - performance.now();
    if (wait <= 0) fire();
    else timer = window.setTimeout(fire, wait);
  });
  return () => {
    unsubscribe();
    if (timer !== null) window.clearTimeout(timer);
    timer = null;
  };
}
