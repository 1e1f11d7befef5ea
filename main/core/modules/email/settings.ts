import net from 'node:net';
import { ApiError } from '../../../../shared/errors.ts';
import { headerSafe } from '../../../../shared/header-text.ts';
import type {
  EmailSettings,
  EmailSettingsBody,
  SmtpCheck,
} from '../../../../shared/schemas/email.ts';
import { composeEmail } from '../../email/compose.ts';
import type { SmtpConfig, SmtpConnector, SmtpTransport } from '../../email/smtp.ts';
import { smtpTransport } from '../../email/smtp.ts';
import { bareHostname, classifyAddress, localNameRefusal } from '../../net/address.ts';
import type { Scope } from '../../runtime.ts';
import { UNSEALABLE_MESSAGE } from '../../secrets.ts';
import { isoOrNull, randomBase62 } from '../../runtime.ts';
import { scopeOf } from './records.ts';
import type { EmailRepo, EmailSettingsRow } from './repo.ts';
import type { EmailDeps } from './service.ts';

/**
 * Email settings (README "Email"): the SMTP server, rate, public URL, DKIM and default sender of
 * a workspace's mode, the pooled transport built from them, and the SMTP check.
 */
export function emailSettings(d: EmailDeps, repo: EmailRepo) {
  const { db, clock, ids } = d;
  let baseUrl = 'http://127.0.0.1:4780';
  const transports = new Map<string, { stamp: string; transport: SmtpTransport }>();

  function settingsRow(scope: Scope): EmailSettingsRow {
    let row = repo.settings(scope);
    if (!row) {
      repo.ensureSettings(scope, randomBase62(d.random, 43));
      row = repo.settings(scope)!;
    }
    if (row.unsealable?.includes('link_key')) {
      // Restored on another machine: links signed with the old key no longer open; new ones do.
      repo.replaceLinkKey(scope, randomBase62(d.random, 43));
      row = repo.settings(scope)!;
    }
    return row;
  }
  const unsealableSmtp = (s: EmailSettingsRow) =>
    (s.unsealable ?? []).filter((c) => c === 'smtp_password' || c === 'dkim_private_key');
  // The mode's own public URL, else the workspace's (Settings → Workspace), else this machine.
  const publicUrlOf = (s: EmailSettingsRow) =>
    (s.public_url ?? d.workspaces.settings(s.workspace_id).publicUrl ?? baseUrl).replace(
      /\/+$/,
      '',
    );

  function smtpConfig(s: EmailSettingsRow): SmtpConfig | null {
    // A password or DKIM key that did not open here: no sends without it (nor unsigned ones).
    if (!s.smtp_host || !s.smtp_port || unsealableSmtp(s).length > 0) return null;
    return {
      host: s.smtp_host,
      port: s.smtp_port,
      secure: s.smtp_secure === 1,
      user: s.smtp_user,
      password: s.smtp_password,
      dkim:
        s.dkim_domain && s.dkim_selector && s.dkim_private_key
          ? {
              domainName: s.dkim_domain,
              keySelector: s.dkim_selector,
              privateKey: s.dkim_private_key,
            }
          : null,
      ...(d.smtpOptions?.allowInvalidCerts ? { allowInvalidCerts: true } : {}),
    };
  }

  /**
   * How the SMTP transport connects: through the one outbound policy (README "Email"), a private
   * or loopback server only where the workspace allows private targets (read at each connect).
   */
  const connector =
    (scope: Scope): SmtpConnector =>
    (host, port, timeoutMs) =>
      d.outbound.connect(host, port, {
        allowPrivate: d.workspaces.settings(scope.workspaceId).allowPrivateWebhooks,
        timeoutMs,
      });

  /** The pooled transport of a workspace's live SMTP settings (rebuilt when they change). */
  function transportFor(s: EmailSettingsRow): SmtpTransport | null {
    const config = smtpConfig(s);
    const key = `${s.workspace_id}/${s.environment}`;
    // Keyed by the settings themselves: two saves within one millisecond still rebuild it.
    const stamp = JSON.stringify(config);
    const cached = transports.get(key);
    if (cached && cached.stamp === stamp) return cached.transport;
    cached?.transport.close();
    transports.delete(key);
    if (!config) return null;
    const transport = smtpTransport(config, {
      connect: connector(scopeOf(s)),
      ...(d.smtpOptions?.timeoutMs ? { timeoutMs: d.smtpOptions.timeoutMs } : {}),
    });
    transports.set(key, { stamp, transport });
    return transport;
  }

  function settingsView(scope: Scope, s: EmailSettingsRow): EmailSettings {
    const publicUrl = publicUrlOf(s);
    return {
      smtp: s.smtp_host
        ? {
            host: s.smtp_host,
            port: s.smtp_port ?? 587,
            secure: s.smtp_secure === 1,
            user: s.smtp_user,
            passwordSet: s.smtp_password !== null,
          }
        : null,
      ratePerSecond: s.rate_per_second,
      publicUrl: s.public_url,
      effectivePublicUrl: publicUrl,
      oneClickUnsubscribe: publicUrl.startsWith('https://'),
      dkim: s.dkim_domain
        ? {
            domainName: s.dkim_domain,
            keySelector: s.dkim_selector ?? '',
            keySet: s.dkim_private_key !== null,
          }
        : null,
      defaultFromEmail: s.default_from_email,
      defaultFromName: s.default_from_name,
      transport: scope.environment === 'test' ? 'simulated' : 'smtp',
      updatedAt: isoOrNull(s.updated_at),
    };
  }

  /** How fast this scope's emails may go: the simulator's rate for test keys, SMTP's for live. */
  const rateOf = (scope: Scope, s: EmailSettingsRow) =>
    scope.environment === 'test'
      ? d.simulator.get(scope.workspaceId).emailRatePerSecond
      : s.rate_per_second;

  /**
   * A live campaign's links (tracking, unsubscribe) must reach its recipients: a loopback or
   * private `publicUrl` (the default is this machine) would send links nobody can open.
   */
  function requireReachable(scope: Scope) {
    if (scope.environment !== 'live') return;
    const url = publicUrlOf(settingsRow(scope));
    // The URL parser has already read every spelling of an address (0x7f000001, 2130706433,
    // 127.1, [::ffff:127.0.0.1]) as the address it means; the classifier webhooks use judges it.
    const host = bareHostname(new URL(url));
    const why = net.isIP(host) ? classifyAddress(host).reason : localNameRefusal(host);
    if (why) {
      throw new ApiError(
        'validation_error',
        `email links would point at ${url} (${why}), which recipients cannot reach: set a public URL in Email settings`,
        { param: 'publicUrl' },
      );
    }
  }

  return {
    row: settingsRow,
    publicUrlOf,
    transportFor,
    rateOf,
    requireReachable,

    api: {
      /** The core's own URL once it listens: the default for tracking links. */
      setBaseUrl(url: string) {
        baseUrl = url;
      },

      closeTransports() {
        for (const t of transports.values()) t.transport.close();
        transports.clear();
      },

      settings: (scope: Scope) => settingsView(scope, settingsRow(scope)),

      saveSettings(scope: Scope, body: EmailSettingsBody): EmailSettings {
        return db
          .transaction(() => {
            const s = settingsRow(scope);
            const next: EmailSettingsRow = { ...s, updated_at: clock.now() };
            if (body.smtp === null) {
              Object.assign(next, {
                smtp_host: null,
                smtp_port: null,
                smtp_secure: 0,
                smtp_user: null,
                smtp_password: null,
              });
            } else if (body.smtp) {
              // The password is write-only: it goes only to the server it was given for.
              const moved =
                body.smtp.host !== s.smtp_host ||
                body.smtp.port !== s.smtp_port ||
                (body.smtp.user ?? null) !== s.smtp_user;
              if (moved && s.smtp_password !== null && body.smtp.password === undefined) {
                throw new ApiError(
                  'validation_error',
                  'give the password again when changing the SMTP host, port or user',
                  { param: 'smtp.password' },
                );
              }
              Object.assign(next, {
                smtp_host: body.smtp.host,
                smtp_port: body.smtp.port,
                smtp_secure: body.smtp.secure ? 1 : 0,
                smtp_user: body.smtp.user,
                // Write-only: left out, the stored password stays.
                smtp_password:
                  body.smtp.password === undefined ? s.smtp_password : body.smtp.password,
              });
            }
            if (body.ratePerSecond !== undefined) next.rate_per_second = body.ratePerSecond;
            if (body.publicUrl !== undefined)
              next.public_url = body.publicUrl?.replace(/\/+$/, '') ?? null;
            if (body.dkim === null) {
              Object.assign(next, {
                dkim_domain: null,
                dkim_selector: null,
                dkim_private_key: null,
              });
            } else if (body.dkim) {
              if (body.dkim.privateKey === undefined && s.dkim_private_key === null) {
                throw new ApiError('validation_error', 'DKIM needs a private key', {
                  param: 'dkim.privateKey',
                });
              }
              Object.assign(next, {
                dkim_domain: body.dkim.domainName,
                dkim_selector: body.dkim.keySelector,
                dkim_private_key: body.dkim.privateKey ?? s.dkim_private_key,
              });
            }
            if (body.defaultFromEmail !== undefined)
              next.default_from_email = body.defaultFromEmail;
            if (body.defaultFromName !== undefined) next.default_from_name = body.defaultFromName;
            // A secret that did not open here stays asked for until given again or unset.
            if (s.unsealable) {
              next.unsealable = s.unsealable.filter((c) =>
                c === 'smtp_password'
                  ? next.smtp_host !== null && next.smtp_password === null
                  : c === 'dkim_private_key' && next.dkim_domain !== null && !next.dkim_private_key,
              );
            }
            repo.saveSettings(next);
            return settingsView(scope, next);
          })
          .immediate();
      },

      /**
       * Connects and logs in to the SMTP server (and with `to`, sends a message), through the
       * outbound policy: a classified outcome, never what a non-SMTP peer sent (README "Email").
       */
      async checkSmtp(scope: Scope, to?: string): Promise<SmtpCheck> {
        const s = settingsRow(scope);
        const lost = unsealableSmtp(s);
        if (lost.length > 0) {
          return {
            ok: false,
            outcome: 'auth_failed',
            code: 'secret_unsealable',
            response: `${lost.map((c) => (c === 'smtp_password' ? 'the SMTP password' : 'the DKIM private key')).join(' and ')}: ${UNSEALABLE_MESSAGE}`,
          };
        }
        const config = smtpConfig(s);
        if (!config) {
          return {
            ok: false,
            outcome: null,
            code: 'smtp_not_configured',
            response: 'No SMTP server is set up yet.',
          };
        }
        const transport = smtpTransport(config, {
          maxConnections: 1,
          connect: connector(scope),
          ...(d.smtpOptions?.timeoutMs ? { timeoutMs: d.smtpOptions.timeoutMs } : {}),
        });
        try {
          const verified = await transport.verify();
          if (verified.outcome !== 'connected' || !to) {
            return { ok: verified.outcome === 'connected', ...verified };
          }
          const fromEmail = s.default_from_email ?? config.user ?? to;
          const composed = composeEmail({
            id: ids('em'),
            fromName: s.default_from_name,
            fromEmail,
            replyTo: null,
            to,
            subject: 'Parley: SMTP test message',
            html: null,
            text: 'This is a test message from Parley. Your SMTP settings work.',
            tracking: null,
          });
          const sent = await transport.send(composed.message);
          if (sent.kind === 'accepted') {
            return {
              ok: true,
              outcome: 'connected',
              code: null,
              response: `${verified.response} The test message to ${to} was accepted.`,
            };
          }
          // The server proved itself an SMTP server (it took our login): its answer is quoted.
          return {
            ok: false,
            outcome: 'connected',
            code: sent.kind === 'withdrawn' ? sent.kind : String(sent.code ?? sent.kind),
            response:
              sent.kind === 'withdrawn'
                ? 'The test message was not sent.'
                : `The server did not take the test message to ${to}: ${headerSafe(sent.response).slice(0, 300)}`,
          };
        } finally {
          transport.close();
        }
      },
    },
  };
}
export type EmailSettingsPart = ReturnType<typeof emailSettings>;
