import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Resolver } from '../../main/core/net/outbound.ts';
import { createOutbound, OutboundError } from '../../main/core/net/outbound.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

/** A real HTTP server on 127.0.0.1 that records what reaches it. */
async function receiver(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const got: { host: string | undefined; url: string | undefined; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      got.push({ host: req.headers.host, url: req.url, body });
      handle(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, got };
}

const ok = (_req: http.IncomingMessage, res: http.ServerResponse) => res.end('ok');

/** A resolver whose answers the test changes between calls, as a rebinding attacker's DNS would. */
function playDns(answers: Record<string, string[]>) {
  const calls: string[] = [];
  const resolve: Resolver = async (hostname) => {
    calls.push(hostname);
    const found = answers[hostname];
    if (!found)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, answers, calls };
}

async function failure(p: Promise<unknown>): Promise<OutboundError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(OutboundError);
  return e as OutboundError;
}

describe('outbound HTTP', () => {
  it('refuses loopback literals, in every spelling, before connecting', async () => {
    const rx = await receiver(ok);
    const out = createOutbound();
    for (const host of [
      '127.0.0.1',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '2130706433',
      '0x7f.1',
    ]) {
      const e = await failure(
        out.send({ url: `http://${host}:${rx.port}/x`, body: 'hi', allowPrivate: false }),
      );
      expect(e.failure, host).toBe('refused_target');
      expect(e.message).toMatch(
        /127\.0\.0\.1\)?, a loopback address, which this workspace does not allow$/,
      );
    }
    expect(rx.got).toEqual([]);
  });

  it('reaches the same receivers when the workspace allows private targets', async () => {
    const rx = await receiver(ok);
    const out = createOutbound();
    // The IPv4-mapped literal really lands on 127.0.0.1: why it has to be refused above.
    const res = await out.send({
      url: `http://[::ffff:127.0.0.1]:${rx.port}/x?y=1`,
      body: 'hi',
      allowPrivate: true,
    });
    expect(res).toMatchObject({ status: 200, truncated: false });
    expect(res.body.toString()).toBe('ok');
    expect(rx.got).toEqual([{ host: `[::ffff:7f00:1]:${rx.port}`, url: '/x?y=1', body: 'hi' }]);
  });

  it('checks the address it connects to, so DNS rebinding cannot reach loopback', async () => {
    const rx = await receiver(ok);
    const dns = playDns({ 'hooks.example.com': ['93.184.216.34'] });
    const out = createOutbound({ resolve: dns.resolve });
    const url = `http://hooks.example.com:${rx.port}/x`;
    expect(await out.checkTarget(url, false)).toBeNull(); // public when saved

    dns.answers['hooks.example.com'] = ['127.0.0.1']; // rebound before the call
    const e = await failure(out.send({ url, body: 'hi', allowPrivate: false }));
    expect(e.failure).toBe('refused_target');
    expect(e.message).toBe(
      'the URL resolves to 127.0.0.1, a loopback address, which this workspace does not allow',
    );
    // One bad answer among good ones is refused too: the socket may pick any of them.
    dns.answers['hooks.example.com'] = ['93.184.216.34', '::ffff:10.0.0.1'];
    expect((await failure(out.send({ url, body: 'hi', allowPrivate: false }))).message).toContain(
      '::ffff:10.0.0.1 (IPv4-mapped 10.0.0.1), a private address',
    );
    expect(rx.got).toEqual([]);

    // The connection really goes where the resolver says: allowed, it lands on the receiver.
    dns.answers['hooks.example.com'] = ['127.0.0.1'];
    const res = await out.send({ url, body: 'hi', allowPrivate: true });
    expect(res.status).toBe(200);
    expect(rx.got).toEqual([{ host: `hooks.example.com:${rx.port}`, url: '/x', body: 'hi' }]);
    expect(dns.calls.filter((h) => h === 'hooks.example.com')).toHaveLength(4);
  });

  it('checks URLs when they are saved: literals, local names and resolved names', async () => {
    const dns = playDns({ 'internal.example.com': ['10.1.2.3'], 'ok.example.com': ['8.8.8.8'] });
    const out = createOutbound({ resolve: dns.resolve });
    expect(await out.checkTarget('http://[64:ff9b::7f00:1]/x', false)).toBe(
      'the URL points to 64:ff9b::7f00:1 (NAT64 for 127.0.0.1), a loopback address, which this workspace does not allow',
    );
    expect(await out.checkTarget('http://printer.local/x', false)).toBe(
      'the URL names printer.local, a local-network (mDNS) name, which this workspace does not allow',
    );
    expect(await out.checkTarget('http://internal.example.com/x', false)).toBe(
      'the URL resolves to 10.1.2.3, a private address, which this workspace does not allow',
    );
    expect(await out.checkTarget('https://ok.example.com/x', false)).toBeNull();
    expect(await out.checkTarget('https://not-yet.example.com/x', false)).toBeNull();
    expect(await out.checkTarget('http://internal.example.com/x', true)).toBeNull();
    expect((await failure(out.checkTarget('ftp://ok.example.com/x', false))).failure).toBe(
      'invalid_url',
    );
  });

  it('does not follow redirects', async () => {
    const rx = await receiver((req, res) => {
      res.writeHead(req.url === '/x' ? 302 : 200, { location: '/elsewhere' }).end();
    });
    const res = await createOutbound().send({
      url: `http://127.0.0.1:${rx.port}/x`,
      body: 'hi',
      allowPrivate: true,
    });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/elsewhere');
    expect(rx.got.map((g) => g.url)).toEqual(['/x']);
  });

  it('sends URL credentials as basic auth', async () => {
    let authorization: string | undefined;
    const rx = await receiver((req, res) => {
      authorization = req.headers.authorization;
      res.end();
    });
    await createOutbound().send({
      url: `http://hook:p%40ss@127.0.0.1:${rx.port}/`,
      body: '{}',
      allowPrivate: true,
    });
    expect(authorization).toBe(`Basic ${Buffer.from('hook:p@ss').toString('base64')}`);
  });

  it('reads at most maxResponseBytes of an answer', async () => {
    const rx = await receiver((_req, res) => res.end(Buffer.alloc(200 * 1024, 'a')));
    const out = createOutbound();
    const big = await out.send({
      url: `http://127.0.0.1:${rx.port}/`,
      allowPrivate: true,
      method: 'GET',
    });
    expect(big.truncated).toBe(true);
    expect(big.body.length).toBe(64 * 1024);
    const small = await out.send({
      url: `http://127.0.0.1:${rx.port}/`,
      allowPrivate: true,
      method: 'GET',
      maxResponseBytes: 300 * 1024,
    });
    expect(small).toMatchObject({ status: 200, truncated: false });
    expect(small.body.length).toBe(200 * 1024);
  });

  it('gives up when no answer comes in time', async () => {
    let answer: (() => void) | undefined;
    const rx = await receiver((_req, res) => {
      answer = () => res.end('late');
    });
    const e = await failure(
      createOutbound().send({
        url: `http://127.0.0.1:${rx.port}/`,
        body: 'hi',
        allowPrivate: true,
        timeoutMs: 200,
      }),
    );
    expect(e.failure).toBe('timeout');
    expect(e.message).toBe('no answer within 0.2 s');
    expect(rx.got).toHaveLength(1);
    answer?.();
  });

  it('keeps connections alive only when asked, one pool per private-target policy', async () => {
    const sockets = new Set<unknown>();
    const rx = await receiver((req, res) => {
      sockets.add(req.socket);
      res.end('ok');
    });
    const dns = playDns({ 'graph.example.com': ['127.0.0.1'] });
    const out = createOutbound({ resolve: dns.resolve });
    const url = `http://graph.example.com:${rx.port}/v1/x`;
    for (let i = 0; i < 3; i++) {
      const res = await out.send({ url, method: 'GET', allowPrivate: true, keepAlive: true });
      expect(res.status).toBe(200);
    }
    const fourth = await out.send({ url, method: 'GET', allowPrivate: true, keepAlive: true });
    expect(String(fourth.body)).toBe('ok');
    expect(sockets.size).toBe(1); // one connection, one lookup, four requests
    expect(dns.calls).toEqual(['graph.example.com']);

    // The stricter policy never borrows the connection the looser one opened and checked.
    const e = await failure(out.send({ url, method: 'GET', allowPrivate: false, keepAlive: true }));
    expect(e.failure).toBe('refused_target');
    // Without keepAlive (webhooks, workflow steps) every request connects afresh.
    await out.send({ url, body: 'hi', allowPrivate: true });
    await out.send({ url, body: 'hi', allowPrivate: true });
    expect(sockets.size).toBe(3);
    expect(rx.got).toHaveLength(6);
    out.close();
  });

  it('reports a pooled connection the server closed under a request, and connects anew', async () => {
    const served = new Map<unknown, number>();
    // The server drops a connection at its second request, as one whose idle timeout raced ours.
    const rx = await receiver((req, res) => {
      const n = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, n);
      if (n === 2) req.socket.destroy();
      else res.end('ok');
    });
    const out = createOutbound();
    const url = `http://127.0.0.1:${rx.port}/`;
    const get = () => out.send({ url, method: 'GET', allowPrivate: true, keepAlive: true });
    expect((await get()).status).toBe(200);
    // It may have been acted on: the failure is the caller's to retry (a durable job), not sent
    // again here.
    expect((await failure(get())).failure).toBe('network');
    expect((await get()).status).toBe(200);
    expect(served.size).toBe(2);
    expect(rx.got).toHaveLength(3);
    out.close();
  });

  it('sends again, on a new connection, what met a pooled connection the server had closed while idle', async () => {
    const open = new Set<Socket>();
    const seen: { method: string | undefined; connection: string | undefined; fresh: boolean }[] =
      [];
    const rx = await receiver((req, res) => {
      seen.push({
        method: req.method,
        connection: req.headers.connection,
        fresh: !open.has(req.socket),
      });
      open.add(req.socket);
      req.socket.once('close', () => open.delete(req.socket));
      res.end(`ok ${req.method}`);
    });
    const out = createOutbound();
    const url = `http://127.0.0.1:${rx.port}/`;
    const pooledGet = () => out.send({ url, method: 'GET', allowPrivate: true, keepAlive: true });
    // The server's idle timeout fires: it closes its open connections (the one in the client's
    // pool) before the next request reaches them, and the client sends at once, before it has
    // seen the close.
    const closeIdle = () => {
      expect(open.size).toBeGreaterThan(0);
      for (const s of open) s.destroy();
    };

    expect((await pooledGet()).status).toBe(200);
    closeIdle();
    const sent = await out.send({ url, body: 'once', allowPrivate: true, keepAlive: true });
    expect(String(sent.body)).toBe('ok POST');

    expect((await pooledGet()).status).toBe(200);
    closeIdle();
    const got = await out.send({ url, method: 'GET', allowPrivate: true, keepAlive: true });
    expect(String(got.body)).toBe('ok GET');

    // Each request reached the server exactly once (the POST too: nothing of it was written to
    // the closed connection); the two that met a closed one came again on a new connection of
    // their own, outside the pool (`connection: close`).
    expect(rx.got.map((g) => g.body)).toEqual(['', 'once', '', '']);
    expect(seen).toEqual([
      { method: 'GET', connection: 'keep-alive', fresh: true },
      { method: 'POST', connection: 'close', fresh: true },
      { method: 'GET', connection: 'keep-alive', fresh: true },
      { method: 'GET', connection: 'close', fresh: true },
    ]);
    // The next request is pooled again.
    expect((await pooledGet()).status).toBe(200);
    expect(seen[4]).toMatchObject({ connection: 'keep-alive' });

    // A server that says 408 as it closes the idle connection: an answer to nothing this
    // client sent, not the POST's.
    for (const s of open) s.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    const again = await out.send({ url, body: 'twice', allowPrivate: true, keepAlive: true });
    expect({ status: again.status, body: String(again.body) }).toEqual({
      status: 200,
      body: 'ok POST',
    });
    expect(rx.got.map((g) => g.body).slice(5)).toEqual(['twice']);
    expect(seen[5]).toMatchObject({ method: 'POST', connection: 'close' });
    out.close();
  });

  it('reports a refused connection as a network failure', async () => {
    const rx = await receiver(ok);
    const port = rx.port;
    const s = servers.pop()!;
    await new Promise<void>((r) => s.close(() => r()));
    const e = await failure(
      createOutbound().send({ url: `http://127.0.0.1:${port}/`, body: 'hi', allowPrivate: true }),
    );
    expect(e.failure).toBe('network');
    expect(e.message).toContain('ECONNREFUSED');
  });
});

describe('pinning a download for another thread', () => {
  it('gives the address the connect-time guard would connect to, under the same policy', async () => {
    const dns = playDns({
      'lookaside.example.com': ['157.240.1.7', '2a03:2880:f003::7'],
      'rebound.example.com': ['157.240.1.8', '127.0.0.1'],
      'v6.example.com': ['2a03:2880:f003::9'],
    });
    const out = createOutbound({ resolve: dns.resolve });
    expect(await out.pin('https://lookaside.example.com/m?x=1', false)).toEqual({
      address: '157.240.1.7',
      family: 4,
    });
    expect(await out.pin('https://v6.example.com/m', false)).toEqual({
      address: '2a03:2880:f003::9',
      family: 6,
    });
    // One loopback address among the answers refuses the name (a rebinding answer mixes them).
    const rebound = await failure(out.pin('https://rebound.example.com/m', false));
    expect(rebound.failure).toBe('refused_target');
    expect(rebound.message).toMatch(/resolves to .*loopback/);
    // Literals are checked without DNS, local names refused before any lookup.
    expect((await failure(out.pin('http://[::ffff:7f00:1]/m', false))).failure).toBe(
      'refused_target',
    );
    expect((await failure(out.pin('http://localhost/m', false))).failure).toBe('refused_target');
    expect(dns.calls).toEqual(['lookaside.example.com', 'v6.example.com', 'rebound.example.com']);
    // A workspace that allows private targets (a local fake Graph API) gets them.
    expect(await out.pin('http://rebound.example.com:8080/m', true)).toEqual({
      address: '157.240.1.8',
      family: 4,
    });
    expect(await out.pin('http://127.0.0.1:8080/m', true)).toEqual({
      address: '127.0.0.1',
      family: 4,
    });
    // A name that does not resolve, a URL that is not http(s).
    expect((await failure(out.pin('https://gone.example.com/m', false))).failure).toBe('network');
    expect((await failure(out.pin('ftp://lookaside.example.com/m', false))).failure).toBe(
      'invalid_url',
    );
  });

  it('gives up on a resolver that does not answer in time', async () => {
    const out = createOutbound({ resolve: () => new Promise(() => {}) });
    const e = await failure(out.pin('https://slow.example.com/m', false, 50));
    expect(e.failure).toBe('timeout');
    expect(e.message).toBe('no address for slow.example.com within 0.05 s');
  });
});
