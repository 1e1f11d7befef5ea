import { useEffect } from 'react';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { SecretBox } from '../../components/secret-box.tsx';
import { useAction } from '../../components/use-action.ts';
import { notify, notifyError } from '../../stores/toasts.ts';
import {
  useWebhooks,
  type CreatedWebhook,
  type DeliveryStatus,
  type Webhook,
} from '../../stores/webhooks.ts';
import { DELIVERY_STATUS_LABELS } from './webhook-words.ts';

/** A delivery's state in words (the word carries it; the colour repeats it). */
export function DeliveryStatusChip({ status }: { status: DeliveryStatus }) {
  return (
    <span
      className={`badge dstatus dstatus-${status}`}
      data-testid="delivery-status"
      data-status={status}
    >
      {DELIVERY_STATUS_LABELS[status]}
    </span>
  );
}

export function EnabledChip({ enabled }: { enabled: boolean }) {
  return (
    <span
      className={`badge hookstate hookstate-${enabled ? 'on' : 'off'}`}
      data-testid="webhook-enabled"
      data-enabled={enabled}
    >
      {enabled ? 'Enabled' : 'Disabled'}
    </span>
  );
}

/** Which events an endpoint gets, in a line: "All events", or the first few and how many more. */
export function EventsSummary({ events, max = 2 }: { events: string[] | null; max?: number }) {
  if (events === null) return <span className="muted">All events</span>;
  const shown = events.slice(0, max);
  const more = events.length - shown.length;
  return (
    <span className="chips" title={events.join(', ')}>
      {shown.map((type) => (
        <span key={type} className="chip mono">
          {type}
        </span>
      ))}
      {more > 0 ? <span className="chip chip-more">+{more} more</span> : null}
    </span>
  );
}

/**
 * Reads again every `everyMs` while the page is open and the window shown (deliveries move on
 * their own: retries, answers), one read at a time; at once when the window shows again.
 */
export function useRefreshWhileOpen(refresh: () => Promise<void>, everyMs: number): void {
  useEffect(() => {
    let running = false;
    const tick = () => {
      if (running || document.visibilityState !== 'visible') return;
      running = true;
      refresh()
        .catch(() => undefined)
        .finally(() => {
          running = false;
        });
    };
    const timer = window.setInterval(tick, everyMs);
    document.addEventListener('visibilitychange', tick);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', tick);
    };
  }, [refresh, everyMs]);
}

/** Enable or Disable, saying what it did. */
export function EnableButton({
  webhook,
  onChanged,
  small = false,
}: {
  webhook: Webhook;
  onChanged?: () => void;
  small?: boolean;
}) {
  const update = useWebhooks((s) => s.update);
  const { busy, run } = useAction();
  const label = webhook.enabled ? 'Disable' : 'Enable';
  return (
    <button
      type="button"
      className={`button${small ? ' button-small' : ''}`}
      disabled={busy}
      aria-label={`${label} ${webhook.url}`}
      onClick={() =>
        void run(
          async () => {
            const saved = await update(webhook.id, { enabled: !webhook.enabled });
            notify(
              'success',
              saved.enabled
                ? 'Endpoint enabled: new events are sent to it again.'
                : 'Endpoint disabled: it gets no new events, and deliveries still pending were stopped.',
            );
            onChanged?.();
          },
          (e) => {
            notifyError(e);
            return true;
          },
        )
      }
      data-testid={webhook.enabled ? 'webhook-disable' : 'webhook-enable'}
    >
      {busy ? 'Saving…' : label}
    </button>
  );
}

/** Asks before deleting: its deliveries stop and its log goes with it. */
export function DeleteWebhookDialog({
  webhook,
  onClose,
  onDeleted,
}: {
  webhook: Webhook;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const remove = useWebhooks((s) => s.remove);
  return (
    <ConfirmDialog
      title="Delete this endpoint?"
      onClose={onClose}
      onConfirm={async () => {
        await remove(webhook.id);
        onDeleted?.();
      }}
      doneMessage="Endpoint deleted."
      confirmLabel="Delete endpoint"
      busyLabel="Deleting…"
      testId="webhook-delete-dialog"
      confirmTestId="webhook-delete-confirm"
    >
      Parley stops sending events to <strong className="mono">{webhook.url}</strong> at once,
      including deliveries still waiting for a retry, and its delivery log goes with it. This cannot
      be undone.
    </ConfirmDialog>
  );
}

/** A new endpoint's signing secret, shown once. */
export function WebhookSecretDialog({
  created,
  onClose,
}: {
  created: CreatedWebhook;
  onClose: () => void;
}) {
  return (
    <Dialog
      title="Endpoint added: its signing secret"
      onClose={onClose}
      testId="webhook-secret-dialog"
      footer={
        <button
          type="button"
          className="button button-primary"
          onClick={onClose}
          data-testid="webhook-secret-close"
        >
          Done
        </button>
      }
    >
      <p data-testid="webhook-secret-lead">
        Deliveries to <strong className="mono">{created.url}</strong> are signed with this secret,
        so your server can check they come from Parley: verify the <code>webhook-signature</code>{' '}
        header with any Standard Webhooks library, or <code>X-Parley-Signature</code> (an
        HMAC-SHA256 of the timestamp, a dot and the body).
      </p>
      <SecretBox secret={created.secret} testId="webhook-secret" copyTestId="webhook-secret-copy" />
      <div className="banner banner-warning" role="note">
        Copy it now: it will not be shown again. If it is lost, delete the endpoint and add it again
        for a new secret.
      </div>
    </Dialog>
  );
}
