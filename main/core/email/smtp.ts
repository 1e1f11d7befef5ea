import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';

/**
 * The workspace's SMTP server as the email runner sees it: one pooled nodemailer transport whose
 * every answer is an outcome the runner can act on (design.md §4 "Email campaigns"). Pacing is
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
   * `ESENDER` (the server refuses the from address or session), `ECONFIG`. Every recipient would
   * fail the same way, so the runner stops rather than bouncing them all.
   */
  | { kind: 'settings'; code: string; response: string };

export type VerifyOutcome =
  { ok: true; response: string } | { ok: false; code: string; response: string };

export interface SmtpTransport {
  send(message: Mail.Options): Promise<SendOutcome>;
  /** "Send test message"/check connection: connects, authenticates, QUITs. */
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

export function smtpTransport(
  config: SmtpConfig,
  opts: { maxConnections?: number; timeoutMs?: number } = {},
): SmtpTransport {
  const transporter = nodemailer.createTransport({
    pool: true,
    maxConnections: opts.maxConnections ?? 5,
    maxMessages: Infinity,
    host: config.host,
    port: config.port,
    secure: config.secure,
    auth: config.user ? { user: config.user, pass: config.password ?? '' } : undefined,
    connectionTimeout: opts.timeoutMs ?? CONNECT_TIMEOUT_MS,
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
  });

  return {
    async send(message) {
      try {
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
        return classifySmtpError(err);
      }
    },

    async verify() {
      try {
        await transporter.verify();
        const login = config.user ? ` and accepted the login of ${config.user}` : '';
        return { ok: true, response: `${config.host}:${config.port} answered${login}` };
      } catch (err) {
        const outcome = classifySmtpError(err);
        // Otherwise the system's code (ECONNREFUSED) says more than nodemailer's (ESOCKET).
        const e = asSmtpError(err);
        const code =
          outcome.kind === 'settings' ? outcome.code : (e.originalCode ?? e.code ?? 'ECONNECTION');
        return { ok: false, code, response: outcome.response };
      }
    },

    close() {
      transporter.close();
    },
  };
}
