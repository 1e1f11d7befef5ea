import { useRef, useState } from 'react';
import type { WebhookReject } from '../../../../shared/schemas/channel.ts';
import { api } from '../../api/client.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { formatDateTime } from '../../components/format.ts';
import { LoadMore } from '../../components/load-more.tsx';
import { useRecord } from '../../components/record-loader.tsx';

const KIND: Record<WebhookReject['kind'], string> = {
  message: 'A message',
  status: 'A delivery status',
  template: 'A template status',
  change: 'A whole change',
};

/** The raw JSON, indented when it parses (it is kept as Meta sent it). */
function pretty(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

const firstPage = () => api.channel.rejects({ limit: 20 });

/**
 * What Meta sent that could not be stored (README "Connecting WhatsApp", one bad item never sinks a
 * delivery): the rest of each delivery committed; these are kept with their raw JSON and why,
 * so nothing a customer sent disappears without a trace.
 */
export function ChannelRejects() {
  const { loaded, retry, setRecord } = useRecord(firstPage);
  const [loadingMore, setLoadingMore] = useState(false);
  // A refresh starts a new list: a "load more" still on its way belongs to the old one.
  const generation = useRef(0);
  const refresh = () => {
    generation.current++;
    setLoadingMore(false);
    retry();
  };

  const loadMore = async () => {
    if (loaded.state !== 'ready' || !loaded.record.nextCursor || loadingMore) return;
    const mine = generation.current;
    const shown = loaded.record;
    setLoadingMore(true);
    try {
      const page = await api.channel.rejects({ limit: 20, cursor: shown.nextCursor });
      if (mine !== generation.current) return;
      const known = new Set(shown.data.map((r) => r.id));
      setRecord({
        data: [...shown.data, ...page.data.filter((r) => !known.has(r.id))],
        nextCursor: page.nextCursor,
      });
    } finally {
      if (mine === generation.current) setLoadingMore(false);
    }
  };

  return (
    <section
      className="card channel-rejects"
      aria-labelledby="channel-rejects-title"
      data-testid="channel-rejects"
    >
      <div className="card-head">
        <h2 id="channel-rejects-title" className="card-title">
          Webhook items that could not be read
        </h2>
        <button type="button" className="button button-small" onClick={refresh}>
          Refresh
        </button>
      </div>
      <p className="hint">
        Each message and status Meta sends is stored on its own. One that cannot be read is kept
        here with what Meta sent and why, and the rest of its delivery is stored as usual.
      </p>
      {loaded.state === 'loading' ? <p className="muted">Loading…</p> : null}
      {loaded.state === 'error' ? <ErrorBanner message={loaded.error} onRetry={refresh} /> : null}
      {loaded.state === 'ready' && loaded.record.data.length === 0 ? (
        <p className="muted" data-testid="channel-rejects-empty">
          None: everything Meta sent was stored.
        </p>
      ) : null}
      {loaded.state === 'ready' && loaded.record.data.length > 0 ? (
        <ul className="channel-reject-list">
          {loaded.record.data.map((r) => (
            <li key={r.id} data-testid="channel-reject">
              <p className="channel-reject-head">
                <strong>{KIND[r.kind]}</strong>{' '}
                <time className="muted" dateTime={r.receivedAt}>
                  {formatDateTime(r.receivedAt)}
                </time>
              </p>
              <p data-testid="channel-reject-reason">{r.reason}</p>
              <details>
                <summary>What Meta sent</summary>
                <pre className="mono channel-reject-raw">{pretty(r.raw)}</pre>
              </details>
            </li>
          ))}
        </ul>
      ) : null}
      {loaded.state === 'ready' ? (
        <LoadMore
          nextCursor={loaded.record.nextCursor}
          loadingMore={loadingMore}
          loadMore={loadMore}
          testId="channel-rejects-more"
        />
      ) : null}
    </section>
  );
}
