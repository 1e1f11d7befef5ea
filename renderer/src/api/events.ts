/**
 * The one event-stream client of the renderer (GET /events, server-sent events). Stores
 * subscribe by event type; the client keeps a single connection whose `?types=` is the union of
 * what is subscribed, resumes after `Last-Event-ID` when it reconnects, and starts a fresh
 * stream when the scope (mode or workspace) changes, since events are scoped like everything else.
 * It reconnects by itself for as long as it is started: after a dropped connection or a restarted
 * core it picks up where it left off (event ids are the store's, so they survive a restart), and
 * it tells the client what it saw (refused session, core gone, core back) for the words on screen.
 */
import { EventSource } from 'eventsource';
import type {
  EphemeralEventType,
  EphemeralPayloads,
  EventType,
  ParleyEvent,
} from '../../../shared/schemas/index.ts';
import {
  apiBaseUrl,
  currentScope,
  onScopeChange,
  reportConnection,
  sessionHeaders,
} from './client.ts';

export type { EventType, ParleyEvent };

export type StreamStatus = 'idle' | 'connecting' | 'open' | 'reconnecting';

/** A stored event's type, or an ephemeral one (presence, viewing, typing, a notification). */
export type StreamEventType = EventType | EphemeralEventType;

/**
 * An ephemeral event as the stream delivers it: like a stored event's envelope, without an `id`
 * (it is never stored or replayed).
 */
export interface EphemeralEvent<T extends EphemeralEventType = EphemeralEventType> {
  type: T;
  createdAt: string;
  workspaceId: string;
  environment: ParleyEvent['environment'];
  data: EphemeralPayloads[T];
}

type Handler = (event: ParleyEvent) => void;

interface Subscription {
  types: ReadonlySet<string>;
  handler: Handler;
}

/** Back-off for reconnects the library gives up on (non-200 answers, e.g. a restarting core). */
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;
/** A stream open at least this long that ends is tried again after `QUICK_RETRY_MS`. */
const QUICK_RETRY_AFTER_MS = 1_000;
/**
 * Not quite at once: a password change ends the member's streams as its answer sets the new
 * cookie, and a retry that beat the cookie would be refused.
 */
const QUICK_RETRY_MS = 250;

const scopeKey = (): string => {
  const { environment, workspaceId } = currentScope();
  return `${environment}:${workspaceId ?? ''}`;
};

function isEnvelope(value: unknown): value is ParleyEvent {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return typeof v.type === 'string' && typeof v.data === 'object' && v.data !== null;
}

class EventStream {
  private readonly subscriptions = new Set<Subscription>();
  private readonly statusListeners = new Set<(status: StreamStatus) => void>();
  private source: EventSource | null = null;
  private connectedTypes = '';
  private connectedScope = '';
  private started = false;
  private lastEventId: string | null = null;
  private retryTimer: number | null = null;
  private retryDelay = RETRY_MIN_MS;
  private reconcileQueued = false;
  private currentStatus: StreamStatus = 'idle';

  constructor() {
    onScopeChange(() => {
      if (this.started && scopeKey() !== this.connectedScope) this.queueReconcile();
    });
  }

  /** Opens the stream (once the session is known); later calls are no-ops. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.queueReconcile();
  }

  stop(): void {
    this.started = false;
    this.disconnect();
    this.setStatus('idle');
  }

  get status(): StreamStatus {
    return this.currentStatus;
  }

  /** Calls `handler` for every event of the given types (in this scope). Returns unsubscribe. */
  subscribe(types: EventType | readonly EventType[], handler: Handler): () => void {
    return this.add(typeof types === 'string' ? [types] : types, handler);
  }

  /**
   * Calls `handler` for every ephemeral event of the given type that reaches this window while
   * the stream is open (none are replayed after a reconnect). Returns unsubscribe.
   */
  subscribeEphemeral<T extends EphemeralEventType>(
    type: T,
    handler: (event: EphemeralEvent<T>) => void,
  ): () => void {
    // The dispatcher checked the envelope; an ephemeral one carries its type's payload.
    return this.add([type], (event) => handler(event as unknown as EphemeralEvent<T>));
  }

  private add(types: readonly StreamEventType[], handler: Handler): () => void {
    const subscription: Subscription = { types: new Set(types), handler };
    this.subscriptions.add(subscription);
    this.queueReconcile();
    return () => {
      this.subscriptions.delete(subscription);
      this.queueReconcile();
    };
  }

  onStatus(listener: (status: StreamStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  private setStatus(status: StreamStatus): void {
    if (status === this.currentStatus) return;
    this.currentStatus = status;
    for (const listener of this.statusListeners) listener(status);
  }

  private wantedTypes(): string {
    const types = new Set<string>();
    for (const s of this.subscriptions) for (const t of s.types) types.add(t);
    return [...types].sort().join(',');
  }

  /** Batches subscription and scope changes made in one tick into at most one reconnect. */
  private queueReconcile(): void {
    if (this.reconcileQueued) return;
    this.reconcileQueued = true;
    queueMicrotask(() => {
      this.reconcileQueued = false;
      this.reconcile();
    });
  }

  private reconcile(): void {
    if (!this.started) return;
    const types = this.wantedTypes();
    const scope = scopeKey();
    if (!types) {
      this.disconnect();
      this.setStatus('idle');
      return;
    }
    if (this.source && types === this.connectedTypes && scope === this.connectedScope) return;
    // Another scope is another stream: its sequence numbers must not be resumed from.
    if (scope !== this.connectedScope) this.lastEventId = null;
    this.connect(types, scope);
  }

  private connect(types: string, scope: string): void {
    this.disconnect();
    this.connectedTypes = types;
    this.connectedScope = scope;
    this.setStatus('connecting');

    const url = new URL(`${apiBaseUrl()}/events`);
    url.searchParams.set('types', types);
    // A campaign's per-recipient events stay on the core; its progress says it moved
    // (stores/campaign-activity.ts reads again what it may have changed).
    url.searchParams.set('campaigns', 'summary');
    const resumeFrom = this.lastEventId;
    const source = new EventSource(url, {
      fetch: (input, init) => {
        const headers: Record<string, string> = { ...init.headers, ...sessionHeaders() };
        // The library resumes on its own reconnects; a new connection resumes from ours.
        if (resumeFrom && !headers['Last-Event-ID']) headers['Last-Event-ID'] = resumeFrom;
        return fetch(input, { ...init, headers });
      },
    });
    this.source = source;

    let openedAt: number | null = null;
    source.addEventListener('open', () => {
      if (this.source !== source) return;
      openedAt = performance.now();
      this.retryDelay = RETRY_MIN_MS;
      this.setStatus('open');
      reportConnection('stream-open');
    });
    source.addEventListener('error', (error) => {
      if (this.source !== source) return;
      // An open stream that ends: the core closed it (a session that was signed out, revoked or
      // deactivated; a core stopping) or the connection dropped. It is tried again within a
      // quarter second, not after the server's `retry:` wait (2 s), so an ended session shows
      // the sign-in within the second.
      const dropped = error.code === undefined && openedAt !== null;
      // 401: the session was refused (retries go on, backing off, so a sign-in in another tab
      // brings the stream back); no status or a 5xx: the core is gone or stopping.
      if (error.code === 401) reportConnection('refused');
      else if (!dropped && (error.code === undefined || error.code >= 500)) {
        reportConnection('unreachable');
      }
      this.setStatus('reconnecting');
      if (dropped || source.readyState === source.CLOSED) {
        // The library does not retry after an HTTP error: do it here, backing off. A stream
        // that had only just opened waits too, so a core that keeps ending it is not hammered.
        source.close();
        this.source = null;
        const lived = openedAt === null ? 0 : performance.now() - openedAt;
        this.scheduleRetry(dropped && lived >= QUICK_RETRY_AFTER_MS ? QUICK_RETRY_MS : undefined);
      }
    });
    // The core could not resume from our Last-Event-ID (older than its retention, or ahead of a
    // restored store): the stream goes on from now, and what we show may have missed changes.
    source.addEventListener('stream.reset', (event) => {
      if (this.source !== source) return;
      if (event.lastEventId) this.lastEventId = event.lastEventId;
      reportConnection('stale');
    });
    const onEvent = (event: MessageEvent) => this.dispatch(source, event);
    for (const type of types.split(',')) source.addEventListener(type, onEvent);
    // Servers that send no `event:` line still reach us as plain messages.
    source.addEventListener('message', onEvent);
  }

  /**
   * Connects again now rather than when the back-off says (a sign-in just happened); a no-op
   * while a connection is open or before `start()`.
   */
  retryNow(): void {
    if (!this.started || this.source) return;
    if (this.retryTimer !== null) {
      window.clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    this.retryDelay = RETRY_MIN_MS;
    this.reconcile();
  }

  /** Connects again after `delay`, or after the back-off (which then doubles). */
  private scheduleRetry(delay?: number): void {
    if (this.retryTimer !== null) return;
    if (delay === undefined) {
      delay = this.retryDelay;
      this.retryDelay = Math.min(RETRY_MAX_MS, this.retryDelay * 2);
    }
    this.retryTimer = window.setTimeout(() => {
      this.retryTimer = null;
      if (!this.started || this.source) return;
      this.connect(this.connectedTypes, scopeKey());
    }, delay);
  }

  private disconnect(): void {
    if (this.retryTimer !== null) {
      window.clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    this.source?.close();
    this.source = null;
  }

  private dispatch(source: EventSource, message: MessageEvent): void {
    if (this.source !== source) return;
    if (message.lastEventId) this.lastEventId = message.lastEventId;
    let envelope: unknown;
    try {
      envelope = JSON.parse(String(message.data));
    } catch {
      return;
    }
    if (!isEnvelope(envelope)) return;
    // Defence in depth: never let one scope's event into another scope's screens.
    const { environment, workspaceId } = currentScope();
    if (envelope.environment && envelope.environment !== environment) return;
    if (workspaceId && envelope.workspaceId && envelope.workspaceId !== workspaceId) return;
    for (const subscription of [...this.subscriptions]) {
      if (!subscription.types.has(envelope.type)) continue;
      try {
        subscription.handler(envelope);
      } catch (e) {
        console.error('event handler failed', envelope.type, e);
      }
    }
  }
}

/** The renderer's single event stream. */
export const events = new EventStream();
