/**
 * Every job kind of the one scheduler and the payload its jobs carry (stored as JSON): the
 * compiler checks that what is enqueued is what the handler reads. A new kind is a line here.
 */
export interface JobPayloads {
  /** A message handed to the local channel (API and inbox sends). */
  'message.dispatch': { messageId: string };
  /** A message handed to a remote provider (the Cloud API), and its retries. */
  'message.deliver': { messageId: string };
  /**
   * A status the local channel reports later (delivered, read, failed), one job each: what
   * earlier versions queued (still run after an upgrade); now `message.receipts`.
   */
  'message.status': {
    messageId: string;
    status: 'delivered' | 'read' | 'failed';
    errorCode?: string | undefined;
    errorMessage?: string | undefined;
  };
  /**
   * Statuses the local channel promised for several messages (one status each, `[messageId,
   * status, dueAt, error?]`, in order of `dueAt`): each applied when due, the job run again at the
   * next one's time.
   */
  'message.receipts': {
    receipts: [
      string,
      'delivered' | 'read' | 'failed',
      number,
      ({ code: string; message: string } | null)?,
    ][];
  };
  /** A snoozed conversation wakes. */
  'conversation.wake': { conversationId: string; until: number | null };
  /** The simulated provider reviews a pending template (this version of it). */
  'template.review': { templateId: string; stamp: number };
  /** A live template goes to Meta (this version of it). */
  'template.submit': { templateId: string; stamp: number };
  /** A live template is deleted at Meta. */
  'template.delete': { workspaceId: string; name: string };
  /** A messaging campaign's pass, its scheduled start and its throttled progress event. */
  'campaign.run': { campaignId: string };
  'campaign.start': { campaignId: string };
  'campaign.progress': { campaignId: string };
  /** An email campaign's pass and its throttled progress event. */
  'email.campaign': { campaignId: string };
  'email.progress': { campaignId: string };
  /** One SMTP exchange. */
  'email.smtp': { id: string };
  /** The simulated transport's later events for a batch of emails. */
  'email.sim': { ids: string[]; kind: 'deliver' | 'open' };
  /** A workflow run's next step (`seq` guards against a stale timer). */
  'workflow.step': { runId: string; seq: number };
  /** A workflow run's webhook step. */
  'workflow.webhook': { runId: string; seq: number };
  /** One webhook delivery. */
  'webhook.deliver': { deliveryId: string };
  /** A received file fetched (Graph media endpoint, or a simulator sample) into data-dir/media. */
  'media.download': { mediaId: string };
  /** Retention's sweep. */
  'store.prune': Record<string, never>;
}

/** Tests register kinds of their own, under `test.`, with any payload. */
export type JobKind = keyof JobPayloads | `test.${string}`;
export type PayloadOf<K extends JobKind> = K extends keyof JobPayloads ? JobPayloads[K] : unknown;
