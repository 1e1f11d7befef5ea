import type { InteractiveList } from '../../../shared/schemas/interactive-lists.ts';
import type { MediaType } from '../../../shared/schemas/media.ts';

/** A media message's file as a channel needs it to send it. */
export interface ChannelMedia {
  /** Our media record. */
  id: string;
  kind: MediaType;
  mimeType: string;
  sha256: string;
  size: number;
  caption: string | null;
  fileName: string | null;
  /** Meta's id for the file when it was uploaded less than 29 days ago; else null. */
  providerId: string | null;
}

/**
 * What the core needs from a chat channel. The simulated channel implements it now; a real
 * provider (the channel's cloud API) can implement it later without touching the services.
 */
export interface ChannelMessage {
  id: string;
  workspaceId: string;
  environment: 'test' | 'live';
  /** The address: E.164, or the customer's BSUID when we know no phone for them. */
  phone: string;
  type: 'template' | 'text' | 'list' | 'media' | 'reaction';
  /** A reaction: its emoji ('' takes it back). */
  text: string;
  templateName: string | null;
  variables: Record<string, string> | null;
  channelMessageId: string;
  /** A list message's list, as it was sent. */
  list?: InteractiveList | null;
  /** A media message's file. */
  media?: ChannelMedia | null;
  /** The provider's id of the message this one quotes (a reply) or reacts to (a reaction). */
  contextChannelId?: string | null;
}

/** A status the channel will report later (real providers report them through webhooks). */
export interface FollowUp {
  status: 'delivered' | 'read' | 'failed';
  delayMs: number;
  errorCode?: string;
  errorMessage?: string;
}

export type DeliveryOutcome =
  /** `channelMessageId`: the provider's id for the message, when it names one (remote). */
  | { ok: true; followUps: FollowUp[]; channelMessageId?: string }
  | { ok: false; retryable: boolean; code: string; message: string };

/** A file uploaded to a remote provider to be sent by its id (`POST /{phone-number-id}/media`). */
export type UploadOutcome =
  | { ok: true; providerId: string }
  | { ok: false; retryable: boolean; code: string; message: string };

/**
 * A channel inside this process (the simulator): the hand-over is a synchronous decision, so it
 * commits in the dispatch job's transaction and happens exactly once.
 */
export interface LocalChannel {
  kind: 'local';
  /** The channel's id for a message it accepted (returned by the send call). */
  newMessageId(): string;
  /** `attempt` starts at 1; `at`, the hand-over's time when the caller stamps a batch with one. */
  handOver(message: ChannelMessage, attempt: number, at?: number): DeliveryOutcome;
}

/**
 * A provider across a network: it accepts a message outside our transaction, so a dispatch is
 * recorded as `dispatching` before the call and its answer committed right after (README "Connecting WhatsApp").
 * A call that ends without an answer (timeout, crash) is re-sent only when no status for the
 * message arrived within the re-send window.
 */
export interface RemoteChannel {
  kind: 'remote';
  /** Our id for the channel's message before it answers, or null when the provider names it. */
  newMessageId(): string | null;
  /** Resolves with the provider's answer; rejects when there was none (network, timeout). */
  deliver(message: ChannelMessage, attempt: number, signal: AbortSignal): Promise<DeliveryOutcome>;
  /**
   * Uploads a media message's file before it is sent by id (an upload that never reached a
   * send costs nothing but storage at the provider, so it may be repeated). Rejects when there
   * was no answer.
   */
  upload?(media: ChannelMedia, signal: AbortSignal): Promise<UploadOutcome>;
}

export type Channel = LocalChannel | RemoteChannel;

/** Which channel carries a scope's messages (test keys: always the simulator). */
export type ChannelRouter = (workspaceId: string, environment: 'test' | 'live') => Channel;
