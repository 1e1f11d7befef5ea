/**
 * Signed media links, kept per media id until shortly before they expire. A thread asks for a
 * link for every photo it draws: the same id is asked for once however often it renders, and a
 * thread of hundreds of photos asks a few at a time rather than all at once.
 */

export interface MediaLink {
  url: string;
  /** Unix ms. */
  expiresAt: number;
}

export interface LinkCacheOptions {
  fetch: (id: string) => Promise<{ url: string; expiresAt: string }>;
  /** Told when a link arrives or fails, so what shows it can draw again. */
  onChange: (id: string) => void;
  now?: () => number;
  /** Requests in flight at once. */
  concurrency?: number;
}

/** A link is used only while this much of its life remains (ms). */
export const LINK_MARGIN_MS = 60_000;
/** A failed request is not tried again for this long (ms), however often it is asked for. */
export const LINK_RETRY_MS = 10_000;
const CONCURRENCY = 6;

export interface LinkCache {
  /** The link for `id` when one is known and fresh, else null. */
  peek: (id: string) => MediaLink | null;
  /** Asks for a link for `id` unless a fresh one is known, one is on its way, or one just failed. */
  request: (id: string) => void;
  /** Forgets a link that did not load (the core restarted, so its key changed) and asks again. */
  renew: (id: string) => void;
  /** Why the last request for `id` failed, if it did. */
  error: (id: string) => string | null;
  /** Forgets everything; answers still on their way are dropped. */
  clear: () => void;
}

export function createLinkCache({
  fetch,
  onChange,
  now = Date.now,
  concurrency = CONCURRENCY,
}: LinkCacheOptions): LinkCache {
  const links = new Map<string, MediaLink>();
  const failures = new Map<string, { message: string; at: number }>();
  const queued: string[] = [];
  const pending = new Set<string>();
  let running = 0;
  let generation = 0;

  const fresh = (link: MediaLink | undefined): link is MediaLink =>
    link !== undefined && link.expiresAt - LINK_MARGIN_MS > now();

  function pump(): void {
    while (running < concurrency && queued.length > 0) {
      const id = queued.shift()!;
      const started = generation;
      running++;
      fetch(id)
        .then(
          (answer) => {
            if (started !== generation) return;
            const expiresAt = Date.parse(answer.expiresAt);
            links.set(id, {
              url: answer.url,
              expiresAt: Number.isNaN(expiresAt) ? now() + LINK_MARGIN_MS * 2 : expiresAt,
            });
            failures.delete(id);
          },
          (e: unknown) => {
            if (started !== generation) return;
            failures.set(id, { message: e instanceof Error ? e.message : String(e), at: now() });
          },
        )
        .finally(() => {
          if (started !== generation) return;
          running--;
          pending.delete(id);
          onChange(id);
          pump();
        });
    }
  }

  function request(id: string): void {
    if (fresh(links.get(id)) || pending.has(id)) return;
    const failure = failures.get(id);
    if (failure && now() - failure.at < LINK_RETRY_MS) return;
    pending.add(id);
    queued.push(id);
    // Every thumbnail drawn in one render asks in turn: the requests go out once it is done.
    queueMicrotask(pump);
  }

  return {
    peek: (id) => {
      const link = links.get(id);
      return fresh(link) ? link : null;
    },
    request,
    renew: (id) => {
      links.delete(id);
      failures.delete(id);
      request(id);
    },
    error: (id) => failures.get(id)?.message ?? null,
    clear: () => {
      generation++;
      links.clear();
      failures.clear();
      queued.length = 0;
      pending.clear();
      running = 0;
    },
  };
}
