/**
 * The team desk's listener (design.md §6): TLS only. A plain `net.Server` reads each connection's
 * first byte: a TLS handshake (0x16) goes on to an `https.Server` whose requests reach the same
 * Fastify app as the loopback listener (`app.routing`); anything else — plain HTTP — gets one
 * `400 Bad Request` line saying where the desk is, and is closed. Nothing is ever served in clear.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import { ListenError } from './server.ts';

const TLS_HANDSHAKE = 0x16;
/** A connection that says nothing is closed after this. */
const FIRST_BYTE_TIMEOUT_MS = 10_000;

export interface TlsListenerOptions {
  host: string;
  port: number;
  certPem: string;
  keyPem: string;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** The https:// URL the refusal of a plain HTTP request names, for the Host it was sent to. */
  httpsUrlFor: (host: string | null) => string;
}

export interface TlsListener {
  host: string;
  port: number;
  /** Stops listening and closes every connection (event streams too). */
  close(): Promise<void>;
}

/** The one-line answer to plain HTTP on the TLS port. */
export function plainHttpRefusal(url: string): string {
  const body = `This Parley desk speaks HTTPS only: open ${url}\n`;
  return [
    'HTTP/1.1 400 Bad Request',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** The Host header of the first chunk of a plain HTTP request, if it has one. */
function hostOf(chunk: Buffer): string | null {
  const head = chunk.toString('latin1', 0, Math.min(chunk.length, 8192));
  const m = /\r\nhost:[ \t]*([^\r\n]*)/i.exec(head);
  return m ? m[1]!.trim() : null;
}

export async function listenTls(opts: TlsListenerOptions): Promise<TlsListener> {
  const sockets = new Set<net.Socket | TLSSocket>();
  const track = (s: net.Socket | TLSSocket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const secure = https.createServer(
    {
      cert: opts.certPem,
      key: opts.keyPem,
      minVersion: 'TLSv1.2',
      // The same limits as the loopback listener's defaults, stated.
      requestTimeout: 300_000,
      headersTimeout: 60_000,
      keepAliveTimeout: 72_000,
    },
    opts.handler,
  );
  secure.on('secureConnection', track);
  // A client that gives up on our certificate (it does not pin it yet) is not an error of ours.
  secure.on('tlsClientError', (_e, socket) => socket.destroy());

  const front = net.createServer((socket) => {
    track(socket);
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, () => socket.destroy());
    socket.once('error', () => socket.destroy());
    socket.once('data', (chunk: Buffer) => {
      socket.setTimeout(0);
      socket.pause();
      if (chunk[0] === TLS_HANDSHAKE) {
        // The TLS socket takes over the connection and reads the bytes put back first.
        socket.unshift(chunk);
        secure.emit('connection', socket);
        return;
      }
      socket.end(plainHttpRefusal(opts.httpsUrlFor(hostOf(chunk))));
      // Read what the client still sends, so closing does not reset the connection before it
      // has read the answer; then let it go.
      socket.resume();
      socket.setTimeout(2_000, () => socket.destroy());
    });
  });

  await new Promise<void>((resolve, reject) => {
    const fail = (e: NodeJS.ErrnoException) => {
      front.off('listening', ok);
      if (e.code === 'EADDRINUSE')
        reject(
          new ListenError(`port ${opts.port} on ${opts.host} is already in use; choose another`),
        );
      else if (e.code === 'EACCES')
        reject(new ListenError(`not allowed to listen on ${opts.host}:${opts.port}`));
      else if (e.code === 'EADDRNOTAVAIL')
        reject(new ListenError(`${opts.host} is not an address of this machine`));
      else reject(e);
    };
    const ok = () => {
      front.off('error', fail);
      resolve();
    };
    front.once('error', fail);
    front.once('listening', ok);
    front.listen({ host: opts.host, port: opts.port });
  });
  const addr = front.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;

  let closing: Promise<void> | null = null;
  return {
    host: opts.host,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        front.close(() => resolve());
        secure.close();
        secure.closeAllConnections();
        for (const s of sockets) s.destroy();
        sockets.clear();
      });
      return closing;
    },
  };
}
