import { generateKeyPairSync } from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { composeEmail } from '../../main/core/email/compose.ts';
import type { SmtpConfig, SmtpConnector, SmtpTransport } from '../../main/core/email/smtp.ts';
import { classifySmtpError, smtpTransport } from '../../main/core/email/smtp.ts';
import { createOutbound } from '../../main/core/net/outbound.ts';
import { smtpPeer } from '../smtp-peer.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  // Transports first (they QUIT), then the servers they talked to.
  for (const close of closers.splice(0).reverse()) await close();
});

/** The shared local SMTP peer, closed after the test. */
async function mailServer(options: SMTPServerOptions = {}) {
  const peer = await smtpPeer(options);
  closers.push(peer.close);
  return peer;
}

function transport(config: Partial<SmtpConfig> & { port: number }, opts = {}): SmtpTransport {
  const t = smtpTransport(
    {
      host: '127.0.0.1',
      secure: false,
      user: null,
      password: null,
      dkim: null,
      ...config,
    },
    { timeoutMs: 2_000, ...opts },
  );
  closers.push(async () => t.close());
  return t;
}

const TOKEN = 'Tk9pQ2VxWnR3b0xhVmx4eWE';

function campaignEmail(to = 'ada@example.org') {
  return composeEmail({
    id: 'em_01JSMTP',
    fromName: 'Parley News',
    fromEmail: 'news@example.com',
    replyTo: 'help@example.com',
    to,
    subject: 'Spring sale',
    html: '<html><body><p>Hi Ada, see <a href="https://shop.example.com/sale">the sale</a>.</p></body></html>',
    text: null,
    tracking: { publicUrl: 'https://mail.example.com', token: TOKEN, linkKey: Buffer.alloc(32, 7) },
  }).message;
}

/** An error an smtp-server hook answers with, carrying its SMTP reply code. */
const smtpError = (responseCode: number, message: string) =>
  Object.assign(new Error(message), { responseCode });

describe('SMTP transport', () => {
  it('delivers a campaign email with its headers and both alternatives', async () => {
    const server = await mailServer();
    const t = transport({ port: server.port });
    const outcome = await t.send(campaignEmail());
    expect(outcome).toEqual({ kind: 'accepted', response: expect.stringMatching(/^250 .*TEST1/) });

    expect(server.received).toHaveLength(1);
    expect(server.received[0]).toMatchObject({ from: 'news@example.com', to: ['ada@example.org'] });
    const mail = await server.parsed();
    expect(mail.from?.value).toEqual([{ name: 'Parley News', address: 'news@example.com' }]);
    expect(mail.replyTo?.value).toEqual([{ name: '', address: 'help@example.com' }]);
    expect(mail.messageId).toBe('<em_01JSMTP@example.com>');
    expect(mail.subject).toBe('Spring sale');
    const header = (key: string) =>
      mail.headerLines
        .find((h) => h.key === key)
        ?.line.replace(/^[^:]+:\s*/, '')
        .replace(/\r?\n[ \t]+/g, ' ');
    expect(header('list-unsubscribe')).toBe(
      `<https://mail.example.com/e/u/${TOKEN}>, <mailto:news@example.com?subject=unsubscribe%20${TOKEN}>`,
    );
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(mail.html).toContain(`href="https://mail.example.com/e/c/${TOKEN}?u=https%3A%2F%2Fshop`);
    expect(mail.html).toContain(`src="https://mail.example.com/e/o/${TOKEN}.gif"`);
    expect(mail.text).toContain('Hi Ada, see the sale [https://shop.example.com/sale].');
    expect(mail.text).toContain(`Unsubscribe: https://mail.example.com/e/u/${TOKEN}`);
  });

  it('reuses one pooled connection for sequential sends', async () => {
    const server = await mailServer();
    const t = transport({ port: server.port }, { maxConnections: 1 });
    for (let i = 0; i < 20; i++) {
      expect((await t.send(campaignEmail(`r${i}@example.org`))).kind).toBe('accepted');
    }
    expect(server.received.map((r) => r.to[0])).toEqual(
      Array.from({ length: 20 }, (_, i) => `r${i}@example.org`),
    );
    expect(server.connections()).toBe(1);
  });

  it('asks to retry a 4xx answer, to the recipient or to the message', async () => {
    const atRcpt = await mailServer({
      onRcptTo: (_address, _session, callback) => callback(smtpError(451, 'Greylisted, try later')),
    });
    expect(await transport({ port: atRcpt.port }).send(campaignEmail())).toEqual({
      kind: 'retry',
      code: 451,
      response: expect.stringMatching(/^451 .*Greylisted/),
    });

    const atData = await mailServer({
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => callback(smtpError(452, 'Insufficient storage')));
      },
    });
    expect(await transport({ port: atData.port }).send(campaignEmail())).toEqual({
      kind: 'retry',
      code: 452,
      response: expect.stringMatching(/^452 .*Insufficient storage/),
    });
  });

  it('reports a 5xx answer to the recipient or to the message as a bounce', async () => {
    const atRcpt = await mailServer({
      onRcptTo: (_address, _session, callback) => callback(smtpError(550, 'No such user here')),
    });
    const t = transport({ port: atRcpt.port }, { maxConnections: 1 });
    expect(await t.send(campaignEmail())).toEqual({
      kind: 'bounced',
      code: 550,
      response: expect.stringMatching(/^550 .*No such user/),
    });
    // The session is reset and the pooled connection serves the next recipient.
    expect((await t.send(campaignEmail())).kind).toBe('bounced');
    expect(atRcpt.connections()).toBe(1);

    const atData = await mailServer({
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => callback(smtpError(554, 'Message rejected as spam')));
      },
    });
    expect(await transport({ port: atData.port }).send(campaignEmail())).toEqual({
      kind: 'bounced',
      code: 554,
      response: expect.stringMatching(/^554 .*spam/),
    });
  });

  it('reports a recipient the server rejects as a bounce even when others pass', async () => {
    const server = await mailServer({
      onRcptTo: (address, _session, callback) =>
        callback(address.address === 'gone@example.org' ? smtpError(550, 'Mailbox gone') : null),
    });
    const message = { ...campaignEmail(), to: ['ada@example.org', 'gone@example.org'] };
    expect(await transport({ port: server.port }).send(message)).toEqual({
      kind: 'bounced',
      code: 550,
      response: expect.stringMatching(/^550 .*Mailbox gone/),
    });
    expect(server.received[0]?.to).toEqual(['ada@example.org']);
  });

  it('blames the settings, not the recipient, when the server will not relay for us', async () => {
    const server = await mailServer({
      onRcptTo: (_address, _session, callback) =>
        callback(smtpError(554, '5.7.1 <ada@example.org>: Relay access denied')),
    });
    expect(await transport({ port: server.port }).send(campaignEmail())).toMatchObject({
      kind: 'settings',
      code: 'ERELAY',
    });
  });

  it('blames the settings when the login fails or is missing', async () => {
    const server = await mailServer({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === 'parley' && auth.password === 'right')
          callback(null, { user: 'parley' });
        else callback(new Error('Invalid username or password'));
      },
    });
    const wrong = await transport({ port: server.port, user: 'parley', password: 'wrong' }).send(
      campaignEmail(),
    );
    expect(wrong).toEqual({
      kind: 'settings',
      code: 'EAUTH',
      response: expect.stringMatching(/^535 .*Invalid username or password/),
    });
    const missing = await transport({ port: server.port }).send(campaignEmail());
    expect(missing).toEqual({
      kind: 'settings',
      code: 'EAUTH',
      response: expect.stringMatching(/^530 /),
    });
    const right = await transport({ port: server.port, user: 'parley', password: 'right' }).send(
      campaignEmail(),
    );
    expect(right.kind).toBe('accepted');
    expect(server.received).toHaveLength(1);
  });

  it('verifies the connection and the login', async () => {
    const server = await mailServer({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.password === 'right') callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
    });
    expect(
      await transport({ port: server.port, user: 'parley', password: 'right' }).verify(),
    ).toEqual({
      outcome: 'connected',
      code: null,
      response: expect.stringContaining('accepted the login of parley'),
    });
    expect(
      await transport({ port: server.port, user: 'parley', password: 'wrong' }).verify(),
    ).toEqual({
      outcome: 'auth_failed',
      code: 'EAUTH',
      response: expect.stringMatching(/refused the login: 535 /),
    });
    expect(server.received).toEqual([]);
  });

  it('asks to retry when the server cannot be reached or does not answer in time', async () => {
    // A port nobody listens on: take one, then free it.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    expect(await transport({ port: closedPort }).send(campaignEmail())).toMatchObject({
      kind: 'retry',
      code: null,
      response: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(await transport({ port: closedPort }).verify()).toMatchObject({
      outcome: 'unreachable',
      code: 'ECONNREFUSED',
    });

    // Accepts the connection and never greets.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((s) => sockets.add(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          silent.close(() => resolve());
        }),
    );
    const port = (silent.address() as AddressInfo).port;
    expect(await transport({ port }, { timeoutMs: 200 }).send(campaignEmail())).toMatchObject({
      kind: 'retry',
      code: null,
    });
  });

  it('blames the settings for a certificate it cannot trust, unless told to accept it', async () => {
    // smtp-server's built-in certificate is self-signed.
    const starttls = await mailServer({ disabledCommands: [] });
    expect(await transport({ port: starttls.port }).send(campaignEmail())).toMatchObject({
      kind: 'settings',
      code: 'ETLS',
    });
    expect(
      (await transport({ port: starttls.port, allowInvalidCerts: true }).send(campaignEmail()))
        .kind,
    ).toBe('accepted');

    const implicit = await mailServer({ secure: true });
    expect(await transport({ port: implicit.port, secure: true }).verify()).toMatchObject({
      outcome: 'tls_failed',
      code: 'ETLS',
    });
    expect(
      await transport({ port: implicit.port, secure: true, allowInvalidCerts: true }).verify(),
    ).toMatchObject({ outcome: 'connected' });
    expect(starttls.received).toHaveLength(1);
  });

  it('signs with DKIM, List-Unsubscribe and List-Unsubscribe-Post included', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const server = await mailServer();
    const t = transport({
      port: server.port,
      dkim: {
        domainName: 'example.com',
        keySelector: 'parley',
        privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      },
    });
    expect((await t.send(campaignEmail())).kind).toBe('accepted');
    const mail = await server.parsed();
    const signature = mail.headerLines
      .find((h) => h.key === 'dkim-signature')
      ?.line.replace(/\r?\n[ \t]+/g, '');
    expect(signature).toMatch(/\bd=example\.com;/);
    expect(signature).toMatch(/\bs=parley;/);
    const signed = /\bh=([^;]+);/.exec(signature ?? '')?.[1]?.split(':');
    expect(signed).toEqual(
      expect.arrayContaining([
        'from',
        'subject',
        'message-id',
        'list-unsubscribe',
        'list-unsubscribe-post',
      ]),
    );
  });
});

describe('SMTP error classes', () => {
  const error = (fields: Record<string, unknown>) => Object.assign(new Error('failed'), fields);

  it('tells settings problems from the recipient and from passing trouble', () => {
    expect(classifySmtpError(error({ code: 'EDNS', originalCode: 'ENOTFOUND' }))).toMatchObject({
      kind: 'settings',
      code: 'EDNS',
    });
    expect(classifySmtpError(error({ code: 'EDNS', originalCode: 'EAI_AGAIN' }))).toMatchObject({
      kind: 'retry',
    });
    for (const originalCode of [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'ERR_TLS_CERT_ALTNAME_INVALID',
    ]) {
      expect(
        classifySmtpError(error({ code: 'ESOCKET', originalCode })),
        originalCode,
      ).toMatchObject({
        kind: 'settings',
        code: 'ETLS',
      });
    }
    expect(
      classifySmtpError(error({ code: 'EENVELOPE', responseCode: 553, command: 'MAIL FROM' })),
    ).toMatchObject({ kind: 'settings', code: 'ESENDER' });
    expect(
      classifySmtpError(error({ code: 'EENVELOPE', responseCode: 503, command: 'RCPT TO' })),
    ).toMatchObject({ kind: 'retry', code: 503 });
    expect(
      classifySmtpError(
        error({ code: 'EENVELOPE', command: 'API', message: 'Invalid recipient "a@"' }),
      ),
    ).toMatchObject({ kind: 'bounced', code: null });
    expect(
      classifySmtpError(
        error({ code: 'EENVELOPE', command: 'API', message: 'Invalid sender "a@"' }),
      ),
    ).toMatchObject({ kind: 'settings', code: 'ESENDER' });
    for (const code of ['ECONNECTION', 'ETIMEDOUT', 'ESOCKET']) {
      expect(classifySmtpError(error({ code })), code).toMatchObject({ kind: 'retry', code: null });
    }
    expect(classifySmtpError('weird')).toEqual({ kind: 'retry', code: null, response: 'weird' });
  });
});

/** A raw TCP server on 127.0.0.1 that greets each connection with `banner`, then waits. */
async function rawServer(banner: string | null) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    if (banner !== null) s.write(banner);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as AddressInfo).port, connections: () => sockets.size };
}

describe('SMTP connection check (README "Email": a class, never the peer’s bytes)', () => {
  it('calls an SSH server not_smtp and never repeats its banner', async () => {
    const ssh = await rawServer('SSH-2.0-OpenSSH_9.6\r\n');
    const check = await transport({ port: ssh.port }).verify();
    expect(check).toMatchObject({ outcome: 'not_smtp' });
    expect(JSON.stringify(check)).not.toContain('OpenSSH');
    expect(JSON.stringify(check)).not.toContain('SSH-2.0');
    // A server that never greets (an HTTP server waits for a request) is no SMTP server either.
    const silent = await rawServer(null);
    expect(await transport({ port: silent.port }, { timeoutMs: 200 }).verify()).toMatchObject({
      outcome: 'not_smtp',
    });
  });

  it('connects through the outbound policy: a loopback server only where the workspace allows it', async () => {
    const server = await mailServer();
    const outbound = createOutbound();
    const via =
      (allowPrivate: boolean): SmtpConnector =>
      (host, port, timeoutMs) =>
        outbound.connect(host, port, { allowPrivate, timeoutMs });
    const refused = await transport({ port: server.port }, { connect: via(false) }).verify();
    expect(refused).toMatchObject({ outcome: 'unreachable', code: 'refused_target' });
    expect(
      await transport({ port: server.port }, { connect: via(false) }).send(campaignEmail()),
    ).toMatchObject({ kind: 'settings', code: 'ETARGET' });
    // A name that resolves to loopback is refused at connect time too.
    const named = await transport(
      { port: server.port, host: 'localhost' },
      { connect: via(false) },
    ).verify();
    expect(named).toMatchObject({ outcome: 'unreachable', code: 'refused_target' });
    expect(server.connections()).toBe(0);
    expect(await transport({ port: server.port }, { connect: via(true) }).verify()).toMatchObject({
      outcome: 'connected',
    });
    expect(
      (await transport({ port: server.port }, { connect: via(true) }).send(campaignEmail())).kind,
    ).toBe('accepted');
  });
});

describe('the pool gate (issue 18 item 11a)', () => {
  it('hands nodemailer no more emails than connections, and an exchange starts only on one', async () => {
    // The server holds every message's DATA until told to answer.
    const held: (() => void)[] = [];
    const server = await mailServer({
      onData(stream, _session, callback) {
        stream.on('data', () => {});
        stream.on('end', () => held.push(() => callback(null, 'Queued')));
      },
    });
    const t = transport({ port: server.port }, { maxConnections: 5 });
    let admitted = 0;
    let started = 0;
    const sends = Array.from({ length: 10 }, (_, i) =>
      t.send(
        composeEmail({
          id: `em_gate${i}`,
          fromName: null,
          fromEmail: 'news@example.com',
          replyTo: null,
          to: `p${i}@example.org`,
          subject: 'Hi',
          html: null,
          text: 'Hi',
          tracking: null,
        }).message,
        {
          admit: () => (admitted++, true),
          started: () => (started++, true),
        },
      ),
    );
    // Five exchanges reach the server and wait there; the other five wait for a connection.
    for (let i = 0; i < 200 && held.length < 5; i++) await new Promise((r) => setTimeout(r, 10));
    expect(held).toHaveLength(5);
    expect(admitted).toBe(5);
    expect(started).toBe(5);
    // Each answer frees a connection for one more: never more exchanges than connections.
    let answered = 0;
    for (let i = 0; i < 500 && answered < 10; i++) {
      const answer = held.shift();
      if (answer) {
        answer();
        answered++;
      }
      await new Promise((r) => setTimeout(r, 5));
      expect(started - answered).toBeLessThanOrEqual(5);
      expect(admitted - answered).toBeLessThanOrEqual(5);
    }
    expect((await Promise.all(sends)).map((o) => o.kind)).toEqual(Array(10).fill('accepted'));
    expect(started).toBe(10);
  });

  it('withdraws an email its runner no longer admits, or stops before its data', async () => {
    const server = await mailServer();
    const t = transport({ port: server.port });
    expect(await t.send(campaignEmail('a@example.org'), { admit: () => false })).toEqual({
      kind: 'withdrawn',
    });
    expect(await t.send(campaignEmail('b@example.org'), { started: () => false })).toEqual({
      kind: 'withdrawn',
    });
    expect(server.received).toEqual([]);
    expect((await t.send(campaignEmail('c@example.org'), { started: () => true })).kind).toBe(
      'accepted',
    );
  });
});
