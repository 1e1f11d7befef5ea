import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import type { ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerOptions } from 'smtp-server';

export interface Received {
  from: string;
  to: string[];
  raw: Buffer;
  at: number;
}

export interface SmtpPeer {
  port: number;
  received: Received[];
  connections: () => number;
  parsed: (i?: number) => Promise<ParsedMail>;
  close: () => Promise<void>;
}

/**
 * A real SMTP server (npm `smtp-server`) on 127.0.0.1 that records what reaches it; hooks in
 * `options` answer as a test needs. No STARTTLS (nothing to verify a certificate against).
 */
export async function smtpPeer(options: SMTPServerOptions = {}): Promise<SmtpPeer> {
  const received: Received[] = [];
  let connections = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    closeTimeout: 200,
    onConnect(_session, callback) {
      connections++;
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          at: Date.now(),
        });
        callback(null, 'Queued as TEST1');
      });
    },
    ...options,
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    connections: () => connections,
    parsed: (i = 0) => simpleParser(received[i]!.raw),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
