import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { pinnedAgent } from '../main/core/net/pin.ts';

/** An answer of the team desk's TLS listener. */
export interface TlsAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: () => any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * A request over TLS to 127.0.0.1:port — never a LAN address, whatever the desk binds — that
 * trusts the desk's certificate by its pin, as a joined desktop does. `host` is the Host header
 * (default `127.0.0.1:port`).
 */
export function tlsRequest(
  port: number,
  pin: string,
  method: string,
  path: string,
  opts: { host?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<TlsAnswer> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const agent = pinnedAgent(pin);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          host: opts.host ?? `127.0.0.1:${port}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          agent.destroy();
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: () => JSON.parse(text),
          });
        });
      },
    );
    req.on('error', (e) => {
      agent.destroy();
      reject(e);
    });
    req.end(body);
  });
}

/** What a plain HTTP client gets from the TLS port of 127.0.0.1: the raw answer. */
export function plainHttp(port: number, host = `127.0.0.1:${port}`): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () =>
      socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nAccept: text/html\r\n\r\n`),
    );
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

/** The `__Host-parley_session` token an answer over TLS set. */
export const secureSessionOf = (res: { headers: IncomingHttpHeaders }): string =>
  /^__Host-parley_session=([^;]+)/.exec(String(res.headers['set-cookie']))![1]!;
