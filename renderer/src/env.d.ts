/// <reference types="vite/client" />

interface ParleyNotification {
  title: string;
  body: string;
  conversationId: string;
}

interface ParleyBridge {
  /** The core's loopback base URL, e.g. http://127.0.0.1:4780 */
  baseUrl: string;
  /** Per-launch session token; sent as X-Parley-Session, never shown or stored. */
  sessionToken: string;
  /** A native notification, shown by the shell only while its window is unfocused. */
  notify?: (n: ParleyNotification) => void;
  /** Calls back when a notification is clicked; returns the unsubscribe. */
  onOpenConversation?: (cb: (conversationId: string) => void) => () => void;
  /** The dock / taskbar badge. */
  setUnreadCount?: (n: number) => void;
  /** The desks this desktop works with (the shell answers on this computer's desk only). */
  desks?: ParleyDesks;
}

interface ParleyDesk {
  origin: string;
  name: string;
  kind: 'local' | 'team';
  fingerprint?: string;
  joinedAt?: string;
}

interface ParleyDesks {
  list: () => Promise<ParleyDesk[]>;
  /** Pastes an invite link: checks the desk shows the pinned certificate, then opens its join page. */
  join: (inviteLink: string) => Promise<{ ok: true } | { ok: false; error: string }>;
  open: (origin: string) => Promise<boolean>;
  forget: (origin: string) => Promise<ParleyDesk[]>;
}

interface Window {
  parley?: ParleyBridge;
}
