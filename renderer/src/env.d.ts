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
}

interface Window {
  parley?: ParleyBridge;
}
