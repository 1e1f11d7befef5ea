import type { Socket } from 'node:net';
import { PassThrough, Transform } from 'node:stream';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { headerSafe } from '../../../shared/header-text.ts';
import type { SMTP_CHECK_OUTCOMES } from '../../../shared/schemas/email.ts';
import { OutboundError } from '../net/outbound.ts';

/**
 * The workspace's SMTP server as the email runner sees it: one pooled nodemailer transport whose
 * every answer is an outcome the runner can act on (README "Email"). Pacing is
 * the runner's; nodemailer only keeps the connections.
 */

export interface SmtpConfig {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  user: string | null;
  password: string | null;
  dkim: null | { domainName: string; keySelector: string; privateKey: string };
  /** Tests only: accept self-signed certificates. */
  allowInvalidCerts?: boolean;
}

export type SendOutcome =
  /** 250: the next server took the message. */
  | { kind: 'accepted'; response: string }
  /** A permanent (5xx) answer to the recipient or the message, or an address that cannot work. */
  | { kind: 'bounced'; code: number | null; response: string }
  /** 4xx, timeouts, dropped or refused connections: the same message may go through later. */
  | { kind: 'retry'; code: number | null; response: string }
  /**
   * The SMTP settings are wrong, not the recipient: `EAUTH` (login failed or required), `ETLS`
   * (TLS or certificate), `EDNS` (host not found), `ERELAY` (the server will not relay for us),
   * `ESENDER` (the server refuses the from address or session), `ECONFIG`, `ETARGET` (the
   * workspace does not allow the server's address). Every recipient would fail the same way, so
   * the runner stops rather than bouncing them all.
   */
  | { kind: 'settings'; code: string; response: string }
  /** `admit` or `started` said no: nothing of the message was sent. */
  | { kind: 'withdrawn' };

/**
 * What a connection check found (README "Email"), never the peer's own bytes unless it proved to
 * be an SMTP server answering our login: `connected` (greeting, EHLO and the login passed),
 * `auth_failed`, `tls_failed`, `unreachable` (no connection: refused, timed out, a name that does
 * not resolve, or a target the workspace does not allow), `not_smtp` (something answered, but not
 * an SMTP greeting: an SSH or HTTP server, say).
 */
export type SmtpCheckOutcome = (typeof SMTP_CHECK_OUTCOMES)[number];

export interface VerifyOutcome {
  outcome: SmtpCheckOutcome;
  /** Why, as a code: `EAUTH`, `ETLS`, `ECONNREFUSED`, `refused_target`, `EPROTOCOL`, …; null when connected. */
  code: string | null;
  /** What happened, in our words (an SMTP server's reply to the login is quoted). */
  response: string;
}

/**
 * A campaign runner's say over one send. `admit` runs when one of the pool's connections is free
 * for this email (nothing is queued inside nodemailer): false withdraws it, unsent. `started`
 * runs when a connected pooled connection takes it, right before its first command; false
 * aborts it before any of its data is sent.
 */
export interface SendHooks {
  admit?: () => boolean;
  started?: () => boolean;
}

/** Opens the TCP connection to the server under the outbound policy (net/outbound.ts). */
export type SmtpConnector = (host: string, port: number, timeoutMs: number) => Promise<Socket>;

export interface SmtpTransport {
  send(message: Mail.Options, hooks?: SendHooks): Promise<SendOutcome>;
  /** "Check connection": connects, authenticates, QUITs; a classified outcome. */
  verify(): Promise<VerifyOutcome>;
  close(): void;
}

const CONNECT_TIMEOUT_MS = 10_000;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const SOCKET_TIMEOUT_MS = 30_000;

/**
 * nodemailer's default DKIM list (RFC 4871 §5.5) plus List-Unsubscribe-Post: RFC 8058 requires
 * both unsubscribe headers to be signed, or mailbox providers ignore one-click.
 */
const DKIM_HEADERS = [
  'From',
  'Sender',
  'Reply-To',
  'Subject',
  'Date',
  'Message-ID',
  'To',
  'Cc',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
  'Content-ID',
  'Content-Description',
  'Resent-Date',
  'Resent-From',
  'Resent-Sender',
  'Resent-To',
  'Resent-Cc',
  'Resent-Message-ID',
  'In-Reply-To',
  'References',
  'List-Id',
  'List-Help',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
  'List-Subscribe',
  'List-Post',
  'List-Owner',
  'List-Archive',
].join(':');

/** The fields of nodemailer's errors this module reads. */
interface SmtpError {
  message?: string;
  code?: string;
  originalCode?: string;
  responseCode?: number;
  response?: string;
  command?: string;
}

const CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'HOSTNAME_MISMATCH',
  'EPROTO',
]);

function isTlsProblem(code: string | undefined): boolean {
  return code !== undefined && (CERT_CODES.has(code) || /^ERR_(TLS|SSL)_/.test(code));
}

function asSmtpError(err: unknown): SmtpError {
  if (typeof err === 'object' && err !== null) return err as SmtpError;
  return { message: String(err) };
}

/** What went wrong, in the order that matters: a login failure also carries a 5xx code. */
export function classifySmtpError(err: unknown): SendOutcome {
  if (err instanceof OutboundError) {
    // The policy refused the address: a setting to change, not a passing trouble.
    if (err.failure === 'refused_target') {
      return { kind: 'settings', code: 'ETARGET', response: err.message };
    }
    return { kind: 'retry', code: null, response: err.message };
  }
  const e = asSmtpError(err);
  const response = e.response ?? e.message ?? 'Unknown SMTP error';
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : null;
  const settings = (code: string): SendOutcome => ({ kind: 'settings', code, response });

  // 530: RFC 4954's "authentication required" (or STARTTLS first), given to MAIL FROM.
  if (e.code === 'EAUTH' || e.code === 'ENOAUTH' || e.code === 'EOAUTH2' || responseCode === 530) {
    return settings('EAUTH');
  }
  if (e.code === 'ETLS' || isTlsProblem(e.code) || isTlsProblem(e.originalCode)) {
    return settings('ETLS');
  }
  if (e.code === 'EDNS' || e.code === 'ENOTFOUND') {
    // A resolver that could not answer right now is not a wrong host name.
    if (e.originalCode === 'EAI_AGAIN') return { kind: 'retry', code: null, response };
    return settings('EDNS');
  }
  if (e.code === 'ECONFIG') return settings('ECONFIG');
  // nodemailer refused the envelope before sending: the address can never be sent to as is.
  if (e.code === 'EENVELOPE' && e.command === 'API') {
    if (/sender/i.test(response)) return settings('ESENDER');
    return { kind: 'bounced', code: null, response };
  }
  // 503 (bad sequence) says the session was off, not the message: a new connection may pass.
  if (responseCode !== null && responseCode >= 500 && responseCode !== 503) {
    if (e.command === 'RCPT TO' || e.command === 'DATA') {
      // "Relay access denied" for every recipient: the server wants a login we did not give.
      if (/\brelay/i.test(response)) return settings('ERELAY');
      return { kind: 'bounced', code: responseCode, response };
    }
    // Refused at the greeting, EHLO or MAIL FROM: nothing to do with this recipient.
    return settings('ESENDER');
  }
  return { kind: 'retry', code: responseCode, response };
}

/** An SMTP reply as a server sends it (`535 5.7.8 …`), cut to one short line. */
function smtpReply(text: string | undefined): string | null {
  const line = headerSafe(text ?? '').trim();
  return /^[2-5]\d\d[ -]/.test(line) ? line.slice(0, 200) : null;
}

/**
 * A failed check's outcome. Only an SMTP server's reply to our login is quoted: a peer that did
 * not greet like an SMTP server is described, never echoed (its banner would make the check a
 * port scanner).
 */
export function classifyCheckError(err: unknown, host: string, port: number): VerifyOutcome {
  const where = `${host}:${port}`;
  if (err instanceof OutboundError) {
    return err.failure === 'refused_target'
      ? {
          outcome: 'unreachable',
          code: 'refused_target',
          response: `${where} is not allowed: ${err.message}. Allow private targets in the workspace settings to use a server on this machine or network.`,
        }
      : {
          outcome: 'unreachable',
          code: err.failure,
          // Our own socket's error (`connect ECONNREFUSED 10.0.0.5:587`), never the peer's bytes.
          response: `Could not connect to ${where}: ${err.failure === 'timeout' ? 'no answer in time' : err.message}.`,
        };
  }
  const e = asSmtpError(err);
  const code = e.originalCode ?? e.code ?? 'ECONNECTION';
  const reply = smtpReply(e.response);
  const sent = classifySmtpError(err);
  if (sent.kind === 'settings' && sent.code === 'EAUTH') {
    return {
      outcome: 'auth_failed',
      code: 'EAUTH',
      response: `${where} refused the login${reply ? `: ${reply}` : '.'}`,
    };
  }
  if (sent.kind === 'settings' && sent.code === 'ETLS') {
    return {
      outcome: 'tls_failed',
      code: 'ETLS',
      response: `The TLS handshake with ${where} failed (${isTlsProblem(e.code) ? e.code : isTlsProblem(e.originalCode) ? e.originalCode : 'not an SMTP server over TLS, or a certificate this machine does not trust'}).`,
    };
  }
  // Connected, but what answered was not an SMTP greeting (a wrong one, or none in time).
  if (
    e.code === 'EPROTOCOL' ||
    (e.command === 'CONN' && /greeting/i.test(e.message ?? '')) ||
    (e.command === 'CONN' && e.code === 'ETIMEDOUT' && !/connect/i.test(e.message ?? ''))
  ) {
    return {
      outcome: 'not_smtp',
      code: 'EPROTOCOL',
      response: `Something answered at ${where}, but not an SMTP server: check the host and port (587 or 465 for submission, 25 for relay).`,
    };
  }
  if (responseCode(e) !== null && reply) {
    // An SMTP server that turned the session down before the login.
    return { outcome: 'unreachable', code, response: `${where} refused the session: ${reply}` };
  }
  const why =
    code === 'ECONNREFUSED'
      ? 'nothing is listening there'
      : code === 'ENOTFOUND' || e.code === 'EDNS'
        ? 'the host name does not resolve'
        : code === 'ETIMEDOUT' || code === 'ETIME'
          ? 'no answer in time'
          : 'the connection failed';
  return { outcome: 'unreachable', code, response: `Could not connect to ${where}: ${why}.` };
}

const responseCode = (e: SmtpError) => (typeof e.responseCode === 'number' ? e.responseCode : null);

/**
 * A pooled nodemailer transport, and a gate in front of it: at most `maxConnections` emails are
 * handed to nodemailer at once, so each one handed over has a connection of its own (nothing
 * waits in nodemailer's queue, where the runner could not see or stop it).
 */
export function smtpTransport(
  config: SmtpConfig,
  opts: { maxConnections?: number; timeoutMs?: number; connect?: SmtpConnector } = {},
): SmtpTransport {
  const maxConnections = opts.maxConnections ?? 5;
  const connectTimeout = opts.timeoutMs ?? CONNECT_TIMEOUT_MS;
  const connect = opts.connect;
  const transporter = nodemailer.createTransport({
    pool: true,
    maxConnections,
    maxMessages: Infinity,
    host: config.host,
    port: config.port,
    secure: config.secure,
    auth: config.user ? { user: config.user, pass: config.password ?? '' } : undefined,
    connectionTimeout: connectTimeout,
    greetingTimeout: opts.timeoutMs ?? CONNECT_TIMEOUT_MS,
    socketTimeout: opts.timeoutMs ?? SOCKET_TIMEOUT_MS,
    dkim: config.dkim ? { ...config.dkim, headerFieldNames: DKIM_HEADERS } : undefined,
    tls: { rejectUnauthorized: !config.allowInvalidCerts },
    // A login never crosses the network in the clear: without TLS from the start, STARTTLS is
    // required (a server on this machine is exempt).
    requireTLS: !!config.user && !config.secure && !LOOPBACK.has(config.host.toLowerCase()),
    // Messages are strings we composed: nothing may make nodemailer read a file or fetch a URL.
    disableFileAccess: true,
    disableUrlAccess: true,
    // Every connection, the check's included, is opened under the outbound policy.
    ...(connect
      ? {
          getSocket: (
            _options: unknown,
            callback: (err: Error | null, socket?: { connection: Socket }) => void,
          ) =>
            connect(config.host, config.port, connectTimeout).then(
              (socket) => callback(null, { connection: socket }),
              (e: Error) => callback(e),
            ),
        }
      : {}),
  });

  /** A stage that fails the message before any of its data is sent. */
  const withdrawn = () =>
    new Transform({ transform: (_chunk, _enc, cb) => cb(new Error('withdrawn before its data')) });
  // `started` hooks by Message-ID: nodemailer copies the options, so the id is the link.
  const starts = new Map<string, () => boolean>();
  transporter.use('stream', (mail, done) => {
    const id = typeof mail.data.messageId === 'string' ? mail.data.messageId : '';
    const started = starts.get(id);
    if (started) {
      // The pool builds the message's stream when a connected connection takes it, right
      // before MAIL FROM: that is when the exchange starts. A message requeued from a
      // connection the server closed comes here again; the first answer holds.
      let ok: boolean | null = null;
      mail.message.transform(() => {
        ok ??= started();
        return ok ? new PassThrough() : withdrawn();
      });
    }
    done();
  });

  // The gate: a free connection for each email handed over.
  let free = maxConnections;
  const waiting: (() => void)[] = [];
  const acquire = () =>
    free > 0 ? (free--, Promise.resolve()) : new Promise<void>((r) => waiting.push(r));
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };

  return {
    async send(message, hooks = {}) {
      await acquire();
      const id = typeof message.messageId === 'string' ? message.messageId : '';
      let aborted = false;
      try {
        if (hooks.admit && !hooks.admit()) return { kind: 'withdrawn' };
        const started = hooks.started;
        if (started && id) {
          starts.set(id, () => {
            aborted = !started();
            return !aborted;
          });
        }
        const info = await transporter.sendMail(message);
        if (info.rejected.length > 0) {
          // One recipient per message, so a rejected one is this message's bounce.
          const rejection = asSmtpError(info.rejectedErrors?.[0]);
          return {
            kind: 'bounced',
            code: rejection.responseCode ?? null,
            response: rejection.response ?? info.response,
          };
        }
        return { kind: 'accepted', response: info.response };
      } catch (err) {
        return aborted ? { kind: 'withdrawn' } : classifySmtpError(err);
      } finally {
        starts.delete(id);
        release();
      }
    },

    async verify() {
      try {
        await transporter.verify();
        const login = config.user ? ` and accepted the login of ${config.user}` : '';
        return {
          outcome: 'connected',
          code: null,
          response: `${config.host}:${config.port} answered as an SMTP server${login}.`,
        };
      } catch (err) {
        return classifyCheckError(err, config.host, config.port);
      }
    },

    close() {
      transporter.close();
    },
  };
}
