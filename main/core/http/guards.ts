import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../shared/errors.ts';

/** The loopback host names a Host header may carry (URL.hostname spells IPv6 with brackets). */
export const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** The UI's own host name for a port (session.ts): no cookie of Parley's reaches another loopback server. */
export const uiHost = (port: number): string => `p${port}.localhost`;

export interface GuardConfig {
  /** The port the server listens on, once known; inject() runs without one. */
  port: () => number | null;
  /** Extra host names accepted besides loopback (the bind address when not a wildcard). */
  extraHosts: string[];
  /**
   * The team desk's TLS listener, while the desk is shared: its port and the names accepted on
   * it (the certificate's names, the machine's LAN addresses and names), or null.
   */
  tls?: () => { port: number; names: ReadonlySet<string> } | null;
}

function splitHost(host: string): { name: string; port: string | null } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.toLowerCase());
  if (!m) return { name: '', port: null };
  return { name: m[1]!, port: m[2] ?? null };
}

/**
 * DNS-rebinding and cross-site defence for a server on the user's machine: the Host must be a
 * loopback name with our port, and a browser request must come from our own origin. A request
 * over TLS came through the team desk's listener: there the Host may also be one of the names the
 * desk is reached by, with the TLS port, and the origin is `https://` that host.
 */
export function createOriginGuard(config: GuardConfig) {
  const names = new Set([...LOOPBACK, ...config.extraHosts.map((h) => h.toLowerCase())]);
  return (request: FastifyRequest): void => {
    const host = request.headers.host ?? '';
    const { name, port } = splitHost(host);
    if (request.protocol === 'https') return guardTls(config, request, host, name, port);
    const ourPort = config.port();
    // The UI's own host name (session.ts): p<PORT>.localhost, a loopback name of its own.
    const own = ourPort === null ? /^p\d+\.localhost$/.test(name) : name === uiHost(ourPort);
    if (
      !(names.has(name) || own) ||
      (ourPort !== null && port !== null && Number(port) !== ourPort)
    ) {
      throw new ApiError('forbidden', `Host "${host}" is not this local server`);
    }
    sameOrigin(request, `http://${host}`);
  };
}

/** A browser request must come from the page's own origin. */
function sameOrigin(request: FastifyRequest, ours: string): void {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== ours) {
    throw new ApiError('forbidden', `cross-origin requests from ${origin} are not allowed`);
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new ApiError('forbidden', 'cross-site requests are not allowed');
  }
}

function guardTls(
  config: GuardConfig,
  request: FastifyRequest,
  host: string,
  name: string,
  port: string | null,
): void {
  const team = config.tls?.() ?? null;
  const known =
    team !== null && (LOOPBACK.has(name) || team.names.has(name) || name === uiHost(team.port));
  // A Host without a port names 443.
  if (!team || !known || Number(port ?? 443) !== team.port) {
    throw new ApiError('forbidden', `Host "${host}" is not this team desk`);
  }
  sameOrigin(request, `https://${host}`);
}
