import type { Database as Db } from 'better-sqlite3';
import type { Sealer } from '../../secrets.ts';
import { noSealer, openSealed } from '../../secrets.ts';

export interface ChannelRow {
  business_account_id: string;
  workspace_id: string;
  provider: 'simulated' | 'cloud_api';
  phone_number_id: string | null;
  waba_id: string | null;
  access_token: string | null;
  app_secret: string | null;
  verify_token: string;
  graph_base_url: string | null;
  display_phone_number: string | null;
  verified_name: string | null;
  quality_rating: string | null;
  provider_tier: number | null;
  provider_mps: number | null;
  checked_at: number | null;
  check_ok: number | null;
  check_message: string | null;
  /** The check's classified outcome (README "Connecting WhatsApp"): connected, auth_failed, …. */
  check_outcome: string | null;
  /** When this account proved the phone number id is its own (a signed webhook, Meta's host). */
  phone_proved_at: number | null;
  updated_at: number;
  /**
   * Not a column: the sealed secrets this machine's data key could not open (read as null; a
   * backup restored elsewhere). Settings ask for them again.
   */
  unsealable?: string[];
}

const SECRETS = ['access_token', 'app_secret'] as const;

/** A webhook item we could not read, kept with its raw JSON and the reason (Settings → Channel). */
export interface RejectRow {
  id: string;
  kind: 'message' | 'status' | 'template' | 'change';
  raw: string;
  reason: string;
  received_at: number;
}

/** Secrets are sealed on write and opened on read (README "Data, backups and security"): callers see plaintext. */
export function channelRepo(db: Db, sealer: Sealer = noSealer) {
  const opened = (r: ChannelRow | undefined) =>
    r && openSealed(sealer, 'channel_settings', r, SECRETS);
  // A secret that did not open stays as stored until it is given again: the settings keep
  // saying so (and the original machine's key would still open it).
  const sealed = (r: ChannelRow): ChannelRow => {
    const stored = r.unsealable?.length
      ? (byAccount.get(r.business_account_id) as ChannelRow | undefined)
      : undefined;
    const seal = (c: (typeof SECRETS)[number]) =>
      r[c] === null && stored && r.unsealable?.includes(c)
        ? stored[c]
        : sealer.sealOrNull(`channel_settings.${c}`, r[c]);
    return { ...r, access_token: seal('access_token'), app_secret: seal('app_secret') };
  };
  const byAccount = db.prepare('SELECT * FROM channel_settings WHERE business_account_id = ?');
  const byPhone = db.prepare('SELECT * FROM channel_settings WHERE phone_number_id = ?');
  const withSecrets = db.prepare(
    `SELECT * FROM channel_settings WHERE provider = 'cloud_api' AND app_secret IS NOT NULL`,
  );
  const insert = db.prepare(
    `INSERT INTO channel_settings (business_account_id, workspace_id, verify_token, updated_at)
     VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const save = db.prepare(
    `UPDATE channel_settings SET provider = @provider, phone_number_id = @phone_number_id,
       waba_id = @waba_id, access_token = @access_token, app_secret = @app_secret,
       verify_token = @verify_token, graph_base_url = @graph_base_url,
       display_phone_number = @display_phone_number, verified_name = @verified_name,
       quality_rating = @quality_rating, provider_tier = @provider_tier,
       provider_mps = @provider_mps, checked_at = @checked_at, check_ok = @check_ok,
       check_message = @check_message, check_outcome = @check_outcome,
       phone_proved_at = @phone_proved_at, updated_at = @updated_at
     WHERE business_account_id = @business_account_id`,
  );
  // A check writes only what it learned, and only if the settings did not change meanwhile.
  const saveCheck = db.prepare(
    `UPDATE channel_settings SET display_phone_number = @display_phone_number,
       verified_name = @verified_name, quality_rating = @quality_rating,
       provider_tier = @provider_tier, provider_mps = @provider_mps, checked_at = @checked_at,
       check_ok = @check_ok, check_message = @check_message, check_outcome = @check_outcome,
       phone_proved_at = @phone_proved_at
     WHERE business_account_id = @business_account_id AND updated_at = @updated_at`,
  );
  const prove = db.prepare(
    `UPDATE channel_settings SET phone_proved_at = ?
     WHERE business_account_id = ? AND phone_proved_at IS NULL`,
  );
  const release = db.prepare(
    'UPDATE channel_settings SET phone_number_id = NULL WHERE business_account_id = ?',
  );
  // A template as a live send gives it to the provider (by workspace and exact name).
  const liveTemplate = db.prepare(
    `SELECT language, components FROM templates
     WHERE workspace_id = ? AND environment = 'live' AND name = ?`,
  );
  const insertReject = db.prepare(
    `INSERT INTO webhook_rejects (id, business_account_id, workspace_id, kind, raw, reason, received_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const rejectsPage = db.prepare(
    `SELECT id, kind, raw, reason, received_at FROM webhook_rejects
     WHERE workspace_id = @workspaceId AND (@cursor IS NULL OR id < @cursor)
     ORDER BY id DESC LIMIT @limit`,
  );
  return {
    byAccount: (accountId: string) => opened(byAccount.get(accountId) as ChannelRow | undefined),
    byPhone: (phoneNumberId: string | null) =>
      opened(byPhone.get(phoneNumberId) as ChannelRow | undefined),
    /** Connected accounts whose app secret opens here. */
    withSecrets: () =>
      (withSecrets.all() as ChannelRow[])
        .map((r) => opened(r)!)
        .filter((r) => r.app_secret !== null),
    insert: (accountId: string, workspaceId: string, verifyToken: string, at: number) =>
      insert.run(accountId, workspaceId, verifyToken, at),
    save: (r: ChannelRow) => save.run(sealed(r)),
    /** How many rows the check wrote: 0 when the settings changed meanwhile. */
    saveCheck: (r: ChannelRow) => saveCheck.run(r).changes,
    prove: (accountId: string, at: number) => prove.run(at, accountId),
    release: (accountId: string) => release.run(accountId),
    liveTemplate: (workspaceId: string, name: string) =>
      liveTemplate.get(workspaceId, name) as { language: string; components: string } | undefined,
    insertReject: (r: RejectRow & { business_account_id: string; workspace_id: string }) =>
      insertReject.run(
        r.id,
        r.business_account_id,
        r.workspace_id,
        r.kind,
        r.raw,
        r.reason,
        r.received_at,
      ),
    rejectsPage: (workspaceId: string, cursor: string | null, limit: number) =>
      rejectsPage.all({ workspaceId, cursor, limit }) as RejectRow[],
  };
}
