import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MediaStoreStopped, MediaTooLarge, mediaStore } from '../../main/core/media/store.ts';
import type { PinnedGet } from '../../main/core/net/outbound.ts';
import { OutboundError } from '../../main/core/net/outbound.ts';
import { tempDir } from '../helpers.ts';

/**
 * Downloads made on the media store's thread (a received file's second step), against real
 * servers on 127.0.0.1: the connection goes to the pinned address, the URL's name makes the
 * Host header and the certificate check; the bytes are written, hashed and counted there.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function store() {
  const d = tempDir('parley-media-fetch-');
  const s = mediaStore(d);
  cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }));
  cleanups.push(() => s.stop());
  return { s, leftovers: () => fs.readdirSync(path.join(d, 'media')), dir: path.join(d, 'media') };
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function listen(server: http.Server | https.Server) {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { port: (server.address() as AddressInfo).port, sockets };
}

/** A server that records what reached it and answers with `handle`. */
async function origin(handle: Handler) {
  const seen: { host?: string; authorization?: string; path?: string }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ host: req.headers.host, authorization: req.headers.authorization, path: req.url });
    handle(req, res);
  });
  return { ...(await listen(server)), seen };
}

/** A GET of `lookaside.example.com:port/path`, pinned to 127.0.0.1 (a name no DNS knows). */
const pinned = (port: number, over: Partial<PinnedGet> = {}): PinnedGet => ({
  url: `http://lookaside.example.com:${port}/v/t1?ext=1`,
  headers: { authorization: 'Bearer token-1' },
  address: '127.0.0.1',
  family: 4,
  allowPrivate: true,
  timeoutMs: 5_000,
  ...over,
});

const bytes = (n: number, seed = 1) => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
};
/** A limit of `bytes`, the first 64 KB kept for the sniffer. */
const up = (bytes: number) => ({ bytes, headBytes: 64 * 1024 });
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function failure(p: Promise<unknown>) {
  return p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: Error) => e,
  );
}

describe('media downloads on the transfer thread', () => {
  it('connects to the pinned address, sends the name and the token, and keeps the file', async () => {
    const file = bytes(150 * 1024);
    const o = await origin((_req, res) => res.end(file));
    const { s, leftovers, dir } = store();
    const got = await s.fetch(pinned(o.port), up(1024 * 1024));
    expect(got.status).toBe(200);
    const f = got.file!;
    expect({ sha256: f.sha256, size: f.size }).toEqual({ sha256: sha(file), size: file.length });
    // The sniffer's first bytes came back with it.
    expect(f.head).toEqual(file.subarray(0, 64 * 1024));
    expect(fs.statSync(f.path).mode & 0o777).toBe(0o600);
    expect(o.seen[0]).toEqual({
      host: `lookaside.example.com:${o.port}`,
      authorization: 'Bearer token-1',
      path: '/v/t1?ext=1',
    });
    expect(f.commit()).toEqual({ sha256: sha(file), size: file.length });
    // As many first bytes as asked for (an image's magic number needs 4,100).
    const again = await s.fetch(pinned(o.port), { bytes: 1024 * 1024, headBytes: 4100 });
    expect(again.file!.head).toEqual(file.subarray(0, 4100));
    again.file!.commit();
    expect(fs.readFileSync(path.join(dir, sha(file)))).toEqual(file);
    expect(leftovers()).toEqual([sha(file)]);
  });

  it('keeps one connection alive across downloads, and answers other statuses without a file', async () => {
    const o = await origin((req, res) => {
      if (req.url!.startsWith('/gone')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"code":100}}');
        return;
      }
      res.end(bytes(2000, Number(req.url!.slice(-1))));
    });
    const { s, leftovers } = store();
    for (const n of [1, 2, 3]) {
      const got = await s.fetch(
        pinned(o.port, { url: `http://127.0.0.1:${o.port}/f${n}` }),
        up(4096),
      );
      expect(got.file!.sha256).toBe(sha(bytes(2000, n)));
      got.file!.discard();
    }
    const gone = await s.fetch(
      pinned(o.port, { url: `http://127.0.0.1:${o.port}/gone` }),
      up(4096),
    );
    expect(gone).toEqual({ status: 404 });
    expect(o.sockets.size).toBe(1);
    expect(leftovers()).toEqual([]);
  });

  it('refuses a file over its limit, declared or streamed, and keeps nothing of it', async () => {
    const o = await origin((req, res) => {
      if (req.url === '/declared') return res.end(bytes(5000));
      // No length given: counted as it streams.
      res.writeHead(200, { 'transfer-encoding': 'chunked' });
      res.write(bytes(3000));
      setImmediate(() => res.end(bytes(3000, 2)));
    });
    const { s, leftovers } = store();
    for (const p of ['/declared', '/streamed']) {
      const e = await failure(
        s.fetch(pinned(o.port, { url: `http://127.0.0.1:${o.port}${p}` }), up(4096)),
      );
      expect(e, p).toBeInstanceOf(MediaTooLarge);
      expect(e.message).toBe('the file is larger than 4 KB');
    }
    expect(leftovers()).toEqual([]);
  });

  it('reports a cut answer, a silent server and a cancelled download as network failures', async () => {
    const hung: http.ServerResponse[] = [];
    const o = await origin((req, res) => {
      res.writeHead(200, { 'content-length': '10000' });
      if (req.url === '/cut') {
        res.write(bytes(100), () => res.socket?.destroy());
        return;
      }
      res.write(bytes(100));
      hung.push(res);
    });
    const { s, leftovers } = store();
    const url = (p: string) => `http://127.0.0.1:${o.port}${p}`;

    const cut = await failure(s.fetch(pinned(o.port, { url: url('/cut') }), up(1e6)));
    expect(cut).toBeInstanceOf(OutboundError);
    expect((cut as OutboundError).failure).toBe('network');

    const slow = await failure(
      s.fetch(pinned(o.port, { url: url('/slow'), timeoutMs: 100 }), up(1e6)),
    );
    expect((slow as OutboundError).failure).toBe('timeout');
    expect(slow.message).toBe('no answer within 0.1 s');

    const controller = new AbortController();
    const cancelled = failure(
      s.fetch(pinned(o.port, { url: url('/hang') }), up(1e6), controller.signal),
    );
    await expect.poll(() => hung.length).toBe(2);
    controller.abort();
    const e = await cancelled;
    expect((e as OutboundError).failure).toBe('network');
    expect(e.message).toBe('aborted: the core is shutting down');
    expect(leftovers()).toEqual([]);
  });

  it('fails a download in flight when the store stops, and takes none after', async () => {
    const hung: http.ServerResponse[] = [];
    const o = await origin((_req, res) => {
      res.writeHead(200, { 'content-length': '10000' });
      res.write(bytes(100));
      hung.push(res);
    });
    const { s, leftovers } = store();
    const inFlight = failure(s.fetch(pinned(o.port), up(1e6)));
    await expect.poll(() => hung.length).toBe(1);
    await expect.poll(() => leftovers().length).toBe(1);
    await s.stop();
    expect(await inFlight).toBeInstanceOf(MediaStoreStopped);
    expect(leftovers()).toEqual([]);
    expect(await failure(s.fetch(pinned(o.port), up(1e6)))).toBeInstanceOf(MediaStoreStopped);
  });

  it('checks an https server’s certificate against the URL’s name, not the pinned address', async () => {
    const d = tempDir('parley-media-fetch-cert-');
    cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }));
    // A certificate for localhost that no authority signed.
    const [keyFile, certFile] = [path.join(d, 'key.pem'), path.join(d, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'ignore' },
    );
    const cert = { certPem: fs.readFileSync(certFile), keyPem: fs.readFileSync(keyFile) };
    let requests = 0;
    const server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (_req, res) => {
      requests += 1;
      res.end('x');
    });
    const { port } = await listen(server);
    const { s, leftovers } = store();
    const e = await failure(
      s.fetch(pinned(port, { url: `https://lookaside.example.com:${port}/v/t1` }), up(1e6)),
    );
    expect((e as OutboundError).failure).toBe('network');
    expect(e.message).toMatch(/self[- ]signed certificate/);
    expect(requests).toBe(0);
    expect(leftovers()).toEqual([]);
  });
});
