/**
 * What the core needs from a chat channel. The simulated channel implements it now; a real
 * provider (the channel's cloud API) can implement it later without touching the services.
 */
export interface ChannelMessage {
  id: string;
  workspaceId: string;
  environment: 'test' | 'live';
  phone: string;
  type: 'template' | 'text' | 'list';
  text: string;
  templateName: string | null;
  variables: Record<string, string> | null;
  channelMessageId: string;
}

/** A status the channel will report later (real providers report them through webhooks). */
export interface FollowUp {
  status: 'delivered' | 'read' | 'failed';
  delayMs: number;
  errorCode?: string;
  errorMessage?: string;
}

export type DeliveryOutcome =
  | { ok: true; followUps: FollowUp[] }
  | { ok: false; retryable: boolean; code: string; message: string };

export interface Channel {
  /** The channel's id for a message it accepted (returned by the send call). */
  newMessageId(): string;
  /** Hands the message to the network. `attempt` starts at 1. */
  deliver(message: ChannelMessage, attempt: number): Promise<DeliveryOutcome>;
}
