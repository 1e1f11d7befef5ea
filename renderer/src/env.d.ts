/// <reference types="vite/client" />

interface ParleyBridge {
  /** The core's loopback base URL, e.g. http://127.0.0.1:4780 */
  baseUrl: string;
  /** Per-launch session token; sent as X-Parley-Session, never shown or stored. */
  sessionToken: string;
}

interface Window {
  parley?: ParleyBridge;
}
