import type { Database as Db } from 'better-sqlite3';
import fs from 'node:fs';
import { ApiError } from '../../../../shared/errors.ts';
import type {
  ChannelSettings,
  ChannelSettingsBody,
  CheckOutcome,
} from '../../../../shared/schemas/channel.ts';
import type { TemplateComponent } from '../../../../shared/schemas/templates.ts';
import type { CloudApiClient } from '../../channel/cloud-api.ts';
import {
  cloudApiClient,
  DEFAULT_GRAPH_BASE_URL,
  GRAPH_TIMEOUT_MS,
  GraphError,
  GraphUnreachable,
  isMetaGraph,
  messagePayload,
  NotGraph,
} from '../../channel/cloud-api.ts';
import type { Outbound } from '../../net/outbound.ts';
import { OutboundError } from '../../net/outbound.ts';
import type {
  Channel,
  ChannelMedia,
  DeliveryOutcome,
  LocalChannel,
  RemoteChannel,
} from '../../channel/types.ts';
import type { Outbox } from '../../events/outbox.ts';
import type { Clock, Random, Scope } from '../../runtime.ts';
import type { Sealer } from '../../secrets.ts';
import { UNSEALABLE_MESSAGE } from '../../secrets.ts';
import { isoOrNull, randomBase62 } from '../../runtime.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import type { ChannelRow } from './repo.ts';
import { channelRepo } from './repo.ts';

export type { ChannelRow } from './repo.ts';

/** A name for an uploaded file that came without one (`image.png`). */
const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'audio/amr': 'amr',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
};
const defaultFileName = (m: ChannelMedia) => `${m.kind}.${EXTENSIONS[m.mimeType] ?? 'bin'}`;

/** Provider errors the governor backs off from (too fast overall, or to one person). */
const RETRYABLE_CODES = new Set([130429, 131056, 131057, 131000, 1, 2, 4, 80007, 133004]);

/** What Meta's error codes mean for a message: failed for good or worth another try. */
export function outcomeOfGraphError(e: GraphError): DeliveryOutcome & { ok: false } {
  const code = e.code === null ? `http_${e.httpStatus}` : String(e.code);
  const detail = e.details ? `${e.message}: ${e.details}` : e.message;
  if (e.code === 190) {
    return {
      ok: false,
      retryable: false,
      code: '190',
      message:
        'The Cloud API access token is invalid or expired: create a new one in Meta Business settings and save it under Settings → Channel',
    };
  }
  const retryable =
    (e.code !== null && RETRYABLE_CODES.has(e.code)) || e.httpStatus >= 500 || e.httpStatus === 429;
  return { ok: false, retryable, code, message: detail };
}

/**
 * A failed check in plain words, classified (README "Connecting WhatsApp"). The provider's own words are
 * quoted only when the host is Meta's: any other host (a setting can aim the core anywhere the
 * workspace allows) gets our words only, so its bytes never come back through the API.
 */
export function classifyCheckFailure(
  e: unknown,
  r: Pick<ChannelRow, 'graph_base_url' | 'phone_number_id'>,
  meta: boolean,
): { outcome: CheckOutcome; message: string } {
  const host = (() => {
    try {
      return new URL(r.graph_base_url ?? DEFAULT_GRAPH_BASE_URL).host;
    } catch {
      return 'the Graph API';
    }
  })();
  if (e instanceof GraphError) {
    const said = meta ? `: ${e.message}` : '';
    if (e.code === 190 || e.httpStatus === 401) {
      return {
        outcome: 'auth_failed',
        message: `${host} refused the access token${e.code !== null ? ` (code ${e.code})` : ''}: it is invalid or expired. Create a new one and save it here.`,
      };
    }
    if (e.code === 100 || e.httpStatus === 404 || e.httpStatus === 403) {
      return {
        outcome: 'auth_failed',
        message: `${host} does not know phone number id ${r.phone_number_id}, or the token cannot see it${e.code !== null ? ` (code ${e.code})` : ''}${said}`,
      };
    }
    return {
      outcome: 'unreachable',
      message: `${host} answered HTTP ${e.httpStatus}${e.code !== null ? ` (code ${e.code})` : ''}${said}`,
    };
  }
  if (e instanceof NotGraph) {
    return {
      outcome: 'not_graph',
      message: `${host} answered (HTTP ${e.httpStatus}), but not as the Graph API does: check the Graph API URL`,
    };
  }
  if (e instanceof GraphUnreachable) {
    if (e.failure === 'tls') {
      return {
        outcome: 'tls_failed',
        message: `could not set up a secure connection to ${host}: its certificate is not valid for it`,
      };
    }
    const why =
      e.failure === 'timeout'
        ? `no answer within ${GRAPH_TIMEOUT_MS / 1000} s`
        : e.failure === 'refused_target' || e.failure === 'invalid_url'
          ? e.message
          : 'the connection failed';
    return { outcome: 'unreachable', message: `could not reach ${host}: ${why}` };
  }
  return { outcome: 'unreachable', message: `could not reach ${host}` };
}

/**
 * The channel a business account uses for live keys (README "Connecting WhatsApp"): the simulator until it is
 * connected to the WhatsApp Cloud API. Settings are write-only for secrets; a check reads the
 * number's name, quality, tier and throughput from the provider, and those limits feed the
 * governor (workspaces.limitsFor).
 */
export function channelService(d: {
  db: Db;
  clock: Clock;
  random: Random;
  outbox: Outbox;
  workspaces: WorkspacesService;
  simulated: LocalChannel;
  outbound: Outbound;
  log: (message: string, error?: unknown) => void;
  sealer: Sealer;
  /** Where a stored media file is (data-dir/media/<sha256>): an upload reads it from there. */
  mediaFile: (sha256: string) => string;
}) {
  const { db, clock } = d;
  const repo = channelRepo(db, d.sealer);

  function row(workspaceId: string): ChannelRow {
    const account = d.workspaces.activeAccount(workspaceId);
    let r = repo.byAccount(account.id);
    if (!r) {
      repo.insert(account.id, workspaceId, randomBase62(d.random, 32), clock.now());
      r = repo.byAccount(account.id)!;
    }
    return r;
  }

  const connected = (r: ChannelRow) =>
    r.provider === 'cloud_api' &&
    !!r.phone_number_id &&
    !!r.waba_id &&
    !!r.access_token &&
    !!r.app_secret;

  const clientOf = (
    r: ChannelRow,
    allowPrivate = d.workspaces.settings(r.workspace_id).allowPrivateWebhooks,
  ): CloudApiClient =>
    cloudApiClient({
      graphBaseUrl: r.graph_base_url ?? DEFAULT_GRAPH_BASE_URL,
      phoneNumberId: r.phone_number_id!,
      wabaId: r.waba_id!,
      accessToken: r.access_token!,
      outbound: d.outbound,
      allowPrivate,
    });

  /** One remote channel per account, rebuilt when its settings change. */
  const remotes = new Map<string, { stamp: string; channel: RemoteChannel }>();
  function remoteFor(r: ChannelRow): RemoteChannel {
    const allowPrivate = d.workspaces.settings(r.workspace_id).allowPrivateWebhooks;
    const stamp = [
      r.graph_base_url,
      r.phone_number_id,
      r.waba_id,
      r.access_token,
      allowPrivate,
    ].join('\n');
    const cached = remotes.get(r.business_account_id);
    if (cached?.stamp === stamp) return cached.channel;
    const client = clientOf(r, allowPrivate);
    const channel: RemoteChannel = {
      kind: 'remote',
      // The provider names the message (`wamid.…`) when it accepts it.
      newMessageId: () => null,
      async deliver(m, _attempt, signal) {
        let template: { language: string; components: TemplateComponent[] } | null = null;
        if (m.type === 'template' && m.templateName) {
          const t = repo.liveTemplate(m.workspaceId, m.templateName);
          if (t) template = { language: t.language, components: JSON.parse(t.components) };
        }
        try {
          const wamid = await client.send(messagePayload(m, template), signal);
          return { ok: true, followUps: [], channelMessageId: wamid };
        } catch (e) {
          return refusedBy(e);
        }
      },
      async upload(media: ChannelMedia, signal: AbortSignal) {
        const file = d.mediaFile(media.sha256);
        try {
          const providerId = await client.uploadMedia(
            { open: () => fs.createReadStream(file), size: media.size },
            media.mimeType,
            media.fileName ?? defaultFileName(media),
            signal,
          );
          return { ok: true, providerId };
        } catch (e) {
          return refusedBy(e);
        }
      },
    };
    /** Meta's refusal as an outcome (a refused token marks the settings); anything else rethrown. */
    function refusedBy(e: unknown): DeliveryOutcome & { ok: false } {
      if (!(e instanceof GraphError)) throw e;
      const outcome = outcomeOfGraphError(e);
      if (e.code === 190) markTokenRefused(r.business_account_id, outcome.message);
      return outcome;
    }
    remotes.set(r.business_account_id, { stamp, channel });
    return channel;
  }

  /** Meta refused the token on a send (code 190): the settings say so until it is replaced. */
  function markTokenRefused(accountId: string, message: string) {
    const r = repo.byAccount(accountId);
    if (!r) return;
    repo.saveCheck({
      ...r,
      checked_at: clock.now(),
      check_ok: 0,
      check_message: message,
      check_outcome: 'auth_failed',
    });
  }

  const secretName = (column: string) =>
    column === 'access_token' ? 'the access token' : 'the app secret';

  function view(scope: Scope, r: ChannelRow): ChannelSettings {
    return {
      provider: r.provider,
      connected: connected(r),
      phoneNumberId: r.phone_number_id,
      wabaId: r.waba_id,
      accessTokenSet: r.access_token !== null,
      appSecretSet: r.app_secret !== null,
      verifyToken: r.verify_token,
      graphBaseUrl: r.graph_base_url ?? DEFAULT_GRAPH_BASE_URL,
      webhookPath: '/channel/webhook',
      number:
        r.checked_at !== null
          ? {
              displayPhoneNumber: r.display_phone_number,
              verifiedName: r.verified_name,
              qualityRating: r.quality_rating,
              messagingTier: r.provider_tier,
              throughputMps: r.provider_mps,
            }
          : null,
      lastCheck: r.unsealable?.length
        ? {
            at: isoOrNull(r.updated_at)!,
            ok: false,
            outcome: 'auth_failed',
            message: `${r.unsealable.map(secretName).join(' and ')}: ${UNSEALABLE_MESSAGE}`,
          }
        : r.checked_at !== null
          ? {
              at: isoOrNull(r.checked_at)!,
              ok: r.check_ok === 1,
              outcome: (r.check_outcome ??
                (r.check_ok === 1 ? 'connected' : 'unreachable')) as CheckOutcome,
              message: r.check_message ?? '',
            }
          : null,
      phoneNumberProved: r.phone_proved_at !== null,
      environment: scope.environment,
      updatedAt: isoOrNull(r.updated_at)!,
    };
  }

  const service = {
    channelFor(workspaceId: string, environment: 'test' | 'live'): Channel {
      if (environment === 'test') return d.simulated;
      const account = d.workspaces.activeAccount(workspaceId);
      const r = repo.byAccount(account.id);
      return r && connected(r) ? remoteFor(r) : d.simulated;
    },

    /** The live channel's settings row, if the account connected a provider. */
    connectedRow(workspaceId: string): ChannelRow | null {
      const r = repo.byAccount(d.workspaces.activeAccount(workspaceId).id);
      return r && connected(r) ? r : null;
    },

    clientFor: (r: ChannelRow) => clientOf(r),

    /** The Graph client of a connected account (a received file is fetched with its token). */
    clientForAccount(accountId: string): CloudApiClient | null {
      const r = repo.byAccount(accountId);
      return r && connected(r) ? clientOf(r) : null;
    },

    /** A webhook signed with the account's app secret named its number: the number is its own. */
    proveNumber: (accountId: string) => repo.prove(accountId, clock.now()),

    /** The account a webhook's `phone_number_id` names, if connected. */
    byPhoneNumberId(id: string): ChannelRow | null {
      const r = repo.byPhone(id);
      return r && connected(r) ? r : null;
    },

    /** Every connected account's app secret: a webhook's signature must match one. */
    appSecrets: () => repo.withSecrets(),

    /** The verify token Meta's handshake must present, per connected account. */
    verifyTokens: () =>
      repo
        .withSecrets()
        .map((r) => r.verify_token)
        .filter(Boolean),

    get(scope: Scope): ChannelSettings {
      return view(scope, row(scope.workspaceId));
    },

    /**
     * Saves the settings (an admin's session only: the route says so). A Graph URL is held to
     * the outbound policy at once: a private or loopback host only where the workspace allows
     * them (README "Connecting WhatsApp").
     */
    async put(scope: Scope, body: ChannelSettingsBody): Promise<ChannelSettings> {
      if (body.graphBaseUrl) {
        const allowPrivate = d.workspaces.settings(scope.workspaceId).allowPrivateWebhooks;
        const refusal = await d.outbound
          .checkTarget(body.graphBaseUrl, allowPrivate)
          .catch((e: unknown) => (e instanceof OutboundError ? e.message : String(e)));
        if (refusal) {
          throw new ApiError(
            'validation_error',
            `graphBaseUrl: ${refusal} (allow private targets in the workspace settings to use a local Graph API)`,
            { param: 'graphBaseUrl' },
          );
        }
      }
      return db
        .transaction(() => {
          const r = row(scope.workspaceId);
          const next: ChannelRow = {
            ...r,
            provider: body.provider ?? r.provider,
            phone_number_id:
              body.phoneNumberId === undefined ? r.phone_number_id : body.phoneNumberId,
            waba_id: body.wabaId === undefined ? r.waba_id : body.wabaId,
            access_token: body.accessToken === undefined ? r.access_token : body.accessToken,
            app_secret: body.appSecret === undefined ? r.app_secret : body.appSecret,
            verify_token: body.verifyToken ?? r.verify_token,
            graph_base_url:
              body.graphBaseUrl === undefined
                ? r.graph_base_url
                : (body.graphBaseUrl?.replace(/\/+$/, '') ?? null),
            updated_at: clock.now(),
          };
          // A secret that did not open on this machine and is given again is set again.
          if (r.unsealable) {
            next.unsealable = r.unsealable.filter((c) => next[c as keyof ChannelRow] === null);
          }
          if (next.provider === 'cloud_api') {
            const missing = (
              [
                ['phoneNumberId', next.phone_number_id],
                ['wabaId', next.waba_id],
                ['accessToken', next.access_token],
                ['appSecret', next.app_secret],
              ] as const
            ).find(([, v]) => !v);
            if (missing) {
              throw new ApiError(
                'validation_error',
                `${missing[0]} is needed to connect the Cloud API`,
                { param: missing[0] },
              );
            }
            if (next.phone_number_id !== r.phone_number_id) {
              const other = repo.byPhone(next.phone_number_id);
              if (other && other.business_account_id !== r.business_account_id) {
                // A number belongs to the account that proved it (a signed webhook, a check
                // against Meta's host); a claim nobody proved yet goes to the desk's admin.
                if (other.phone_proved_at !== null) {
                  throw new ApiError(
                    'validation_error',
                    'another business account proved this phone number id is its own (Meta’s signed webhooks reach it)',
                    { param: 'phoneNumberId' },
                  );
                }
                repo.release(other.business_account_id);
              }
            }
          }
          // The token is write-only: it goes only where it was given for. Sending it somewhere
          // new (another Graph URL or number) needs it given again.
          const moved =
            next.graph_base_url !== r.graph_base_url ||
            next.phone_number_id !== r.phone_number_id ||
            next.waba_id !== r.waba_id;
          if (moved && r.access_token !== null && body.accessToken === undefined) {
            throw new ApiError(
              'validation_error',
              'give the access token again when changing the Graph API URL, phone number id or WABA id',
              { param: 'accessToken' },
            );
          }
          // New credentials: what the last check said no longer holds.
          if (
            next.phone_number_id !== r.phone_number_id ||
            next.access_token !== r.access_token ||
            next.graph_base_url !== r.graph_base_url
          ) {
            Object.assign(next, {
              checked_at: null,
              check_ok: null,
              check_message: null,
              check_outcome: null,
              provider_tier: null,
              provider_mps: null,
            });
          }
          if (next.phone_number_id !== r.phone_number_id || next.app_secret !== r.app_secret) {
            // A new number, or a new secret to sign its webhooks: proved again.
            next.phone_proved_at = null;
          }
          repo.save(next);
          return view(scope, next);
        })
        .immediate();
    },

    /**
     * Calls the phone number endpoint and keeps what the provider said (its name, quality,
     * tier and throughput feed the governor), in plain words.
     */
    async check(scope: Scope): Promise<ChannelSettings> {
      const r = row(scope.workspaceId);
      if (!connected(r)) {
        throw new ApiError(
          'invalid_state',
          'connect the Cloud API first: provider "cloud_api" with phone number id, WABA id, access token and app secret',
          { details: { provider: r.provider } },
        );
      }
      let patch: Partial<ChannelRow>;
      const meta = isMetaGraph(r.graph_base_url);
      try {
        const info = await clientOf(r).phoneNumber();
        patch = {
          display_phone_number: info.displayPhoneNumber,
          verified_name: info.verifiedName,
          quality_rating: info.qualityRating,
          // A tier Meta did not name (or named in a way we do not know) is not "unlimited":
          // the last one known, else the account's own.
          provider_tier:
            info.tier !== undefined
              ? info.tier
              : r.checked_at !== null && r.check_ok === 1
                ? r.provider_tier
                : d.workspaces.activeAccount(scope.workspaceId).messagingTier,
          provider_mps: info.mps ?? r.provider_mps,
          check_ok: 1,
          check_outcome: 'connected',
          check_message: `Connected: ${info.verifiedName ?? 'the number'} (${info.displayPhoneNumber ?? r.phone_number_id}), quality ${info.qualityRating ?? 'unknown'}`,
          // Meta's own host vouches for the token reaching the number; another host does not.
          phone_proved_at: r.phone_proved_at ?? (meta ? clock.now() : null),
        };
      } catch (e) {
        const { outcome, message } = classifyCheckFailure(e, r, meta);
        patch = { check_ok: 0, check_outcome: outcome, check_message: message };
      }
      const next = { ...r, ...patch, checked_at: clock.now() };
      if (repo.saveCheck(next) === 0) {
        // The settings changed while Meta answered: that answer was about the old ones.
        return view(scope, row(scope.workspaceId));
      }
      return view(scope, next);
    },
  };
  return service;
}
export type ChannelService = ReturnType<typeof channelService>;
