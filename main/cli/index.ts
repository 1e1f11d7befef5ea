import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { CampaignStatus } from '../../shared/campaign-rules.ts';
import { CAMPAIGN_STATUSES, doneShare, isFinalCampaign } from '../../shared/campaign-rules.ts';
import { ApiError } from '../../shared/errors.ts';
import { formatMicros, parseAmountToMicros } from '../../shared/money.ts';
import type { Campaign, CampaignProgress } from '../../shared/schemas/campaigns.ts';
import { launchCampaignBody } from '../../shared/schemas/campaigns.ts';
import { environmentSchema } from '../../shared/schemas/common.ts';
import type { Store } from '../core/core.ts';
import { createCore, openStore, VERSION } from '../core/core.ts';
import { DatabaseOpenError } from '../core/db/open.ts';
import { privateFile } from '../core/files.ts';
import { ListenError } from '../core/http/server.ts';
import { retentionFromEnv } from '../core/jobs/retention.ts';
import { lastServeUrl, loginUrl, recordServeUrl } from '../core/http/session.ts';
import { LOGIN_LINK_TTL_MS } from '../core/modules/members/service.ts';
import type { WorkspaceSettings } from '../core/modules/workspaces/service.ts';
import { workspaceSettingsBody } from '../../shared/schemas/workspace-settings.ts';
import type { Scope } from '../core/runtime.ts';
import type { Services } from '../core/services.ts';
import { readImportStream } from '../core/modules/contacts/import.ts';
import { defaultDataDir } from '../core/paths.ts';
import { isLoopback, isWildcard } from '../core/modules/team/addresses.ts';
import { CertificateError } from '../core/tls/certificate.ts';
import { describeSharing, teamCommands } from './team.ts';
import type { Ctx, Io, Values } from './common.ts';
import { cliAudit, envOrUsage, need, OPTIONS, table, UsageError } from './common.ts';
import { exportCommands } from './exports.ts';

const USAGE = `parley ${VERSION} — Parley's service core on the command line

Usage: parley <command> [options]

  serve [--port 4780] [--host 127.0.0.1]       run the API and the UI headless; prints a sign-in link
  serve --team [--host 0.0.0.0] [--port 4780] [--tls-cert F --tls-key F] [--announce]
                                                 share the desk with the team on the network: TLS
                                                 only (a self-signed certificate unless given; its
                                                 fingerprint is printed and carried by invites);
                                                 --announce also announces it on the LAN (mDNS).
                                                 A --host off loopback always means --team
  login-url [--port N] [--host H]               the browser sign-in link again (default: where
                                                 serve last listened on this data dir)
  workspaces create NAME | workspaces list
  keys create --env test|live --name NAME [--workspace ID]
  keys list [--workspace ID] | keys revoke ID
  wallet show [--workspace ID]
  wallet topup --amount 25.00 [--description TEXT] [--workspace ID]
  contacts import FILE.csv [--env test|live] [--workspace ID]
  contacts export [--label L] [--group ID] [--q TEXT] [--out FILE] [--env test|live]
                                                 the contacts as CSV (UTF-8 with BOM,
                                                 formula-safe) to stdout, or to FILE (0600)
  campaigns list [--status S] [--env test|live] [--workspace ID]
  campaigns show ID                              the campaign and its funnel
  campaigns launch ID [--at ISO] [--wait]        --at schedules it; --wait sends from this process
                                                 (beside any running serve) with a progress bar
                                                 until it ends: exit 0 when completed, 1 otherwise;
                                                 Ctrl-C stops the waiting, not the campaign (130)
  campaigns pause ID                             resume with campaigns launch ID
  members list [--workspace ID]
  members invite EMAIL --name NAME --role agent|admin [--rights campaigns,automation]
                                                 prints the one-use invite link (7 days)
  members deactivate ID                          ends their sessions; they can no longer sign in
  team status                                    shared or not, addresses, fingerprint, certificate
                                                 expiry, sessions online (seen in 5 minutes)
  settings show [--workspace ID]
  settings set KEY VALUE [--workspace ID]        allowPrivateWebhooks true|false,
                                                 lowBalanceThresholdMicros N | lowBalanceThreshold 5.00,
                                                 autoAssign true|false, assignOnFirstReply true|false,
                                                 publicUrl https://… | none
  backup FILE                                    consistent online copy of the database (0600;
                                                 never the data key that opens its secrets) and
                                                 of the media files, in FILE.media/ (0700)

Every command takes --data-dir DIR (env PARLEY_DATA_DIR; default: the app's data folder)
and --json (one JSON object on stdout, nothing else).`;

export async function main(argv: string[], io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    io.err(`parley: ${(e as Error).message.split('\n')[0]} (see parley --help)`);
    return 2;
  }
  const values = parsed.values as Values;
  const [command, sub, ...rest] = parsed.positionals;
  const json = values.json === true;
  if (values.version) {
    io.out(json ? JSON.stringify({ version: VERSION }) : VERSION);
    return 0;
  }
  if (values.help || !command) {
    io.out(USAGE);
    return command || values.help ? 0 : 2;
  }
  const dataDir = values['data-dir'] ? path.resolve(values['data-dir']) : defaultDataDir();
  const print = (human: string, data: unknown) => io.out(json ? JSON.stringify(data) : human);

  try {
    if (command === 'serve') return await serve(values, dataDir, io, json);
    let store: Store | null = null;
    const open = () => (store ??= openStore({ dataDir }));
    try {
      const run = COMMANDS[`${command} ${sub ?? ''}`.trim()] ?? COMMANDS[command];
      if (!run)
        throw new UsageError(`unknown command "${[command, sub].filter(Boolean).join(' ')}"`);
      const positional = COMMANDS[`${command} ${sub ?? ''}`.trim()]
        ? rest
        : [sub, ...rest].filter((x): x is string => !!x);
      const code = await run({ values, dataDir, positional, open, print, io, json });
      return typeof code === 'number' ? code : 0;
    } finally {
      (store as Store | null)?.close();
    }
  } catch (e) {
    return fail(e, io, json);
  }
}

function fail(e: unknown, io: Io, json: boolean): number {
  if (e instanceof UsageError) {
    if (json) io.out(JSON.stringify({ error: { code: 'usage', message: e.message } }));
    io.err(`parley: ${e.message} (see parley --help)`);
    return 2;
  }
  const known =
    e instanceof ApiError ||
    e instanceof DatabaseOpenError ||
    e instanceof ListenError ||
    e instanceof CertificateError;
  const message = known
    ? (e as Error).message
    : `unexpected error: ${(e as Error)?.stack ?? String(e)}`;
  const code = e instanceof ApiError ? e.code : known ? 'failed' : 'internal_error';
  if (json) io.out(JSON.stringify({ error: { code, message } }));
  io.err(`parley: ${message}`);
  return 1;
}

const COMMANDS: Record<string, (ctx: Ctx) => void | number | Promise<void | number>> = {
  ...teamCommands,
  ...exportCommands,
  'workspaces create': ({ positional, open, print }) => {
    const name = need(positional.join(' '), 'workspace NAME');
    const ws = open().services.workspaces.create(name);
    print(`created workspace ${ws.name} (${ws.id})`, { id: ws.id, name: ws.name });
  },
  'workspaces list': ({ open, print }) => {
    const list = open().services.workspaces.list();
    print(
      table(list.map((w) => ({ id: w.id, name: w.name, created: w.createdAt }))),
      list.map((w) => ({ id: w.id, name: w.name })),
    );
  },
  'keys create': ({ values, open, print }) => {
    const env = environmentSchema.safeParse(need(values.env, '--env test|live'));
    if (!env.success) throw new UsageError('--env must be test or live');
    const name = need(values.name, '--name NAME').trim();
    if (!name || name.length > 100) throw new UsageError('--name must be 1 to 100 characters');
    const { services } = open();
    const ws = services.workspaces.resolve(values.workspace);
    const k = services.keys.create(ws.id, env.data, name);
    cliAudit(
      services,
      ws.id,
      'api_key.created',
      { type: 'api_key', id: k.id },
      { environment: env.data },
    );
    print(
      `${k.key}\n\nCreated ${k.environment} key "${k.name}" (${k.id}) for workspace ${ws.name}.\n` +
        'Store it now: it is shown only this once.',
      {
        id: k.id,
        key: k.key,
        prefix: k.prefix,
        environment: k.environment,
        workspaceId: k.workspaceId,
      },
    );
  },
  'keys list': ({ values, open, print }) => {
    const { services } = open();
    const ws = services.workspaces.resolve(values.workspace);
    const all = [];
    let cursor: string | undefined;
    do {
      const p = services.keys.list(ws.id, 200, cursor);
      all.push(...p.data);
      cursor = p.nextCursor ?? undefined;
    } while (cursor);
    print(
      table(
        all.map((k) => ({
          id: k.id,
          name: k.name,
          prefix: `${k.prefix}…`,
          env: k.environment,
          created: k.createdAt,
          'last used': k.lastUsedAt ?? 'never',
          status: k.revokedAt ? `revoked ${k.revokedAt}` : 'active',
        })),
      ),
      all,
    );
  },
  'keys revoke': ({ positional, open, print }) => {
    const id = need(positional[0], 'key ID');
    const { services } = open();
    const k = services.keys.revoke(services.keys.workspaceOf(id), id);
    cliAudit(services, services.keys.workspaceOf(id), 'api_key.revoked', { type: 'api_key', id });
    print(`revoked ${k.prefix}… (${k.id}); it is refused from its next request on`, k);
  },
  'wallet show': ({ values, open, print }) => {
    const { services } = open();
    const ws = services.workspaces.resolve(values.workspace);
    const w = services.wallet.get(ws.id);
    const recent = services.wallet.transactions(ws.id, 10).data;
    print(
      `${ws.name}: balance ${formatMicros(w.balanceMicros, w.currency)}\n\n` +
        table(
          recent.map((t) => ({
            date: t.createdAt,
            type: t.type,
            amount: formatMicros(t.amountMicros, w.currency),
            balance: formatMicros(t.balanceAfterMicros, w.currency),
            description: t.description,
          })),
        ),
      { ...w, recent },
    );
  },
  'wallet topup': ({ values, open, print }) => {
    const amount = parseAmountToMicros(need(values.amount, '--amount (e.g. 25.00)'));
    if (amount === null || amount <= 0)
      throw new UsageError('--amount must be a positive amount like 25.00');
    const { services } = open();
    const ws = services.workspaces.resolve(values.workspace);
    const r = services.wallet.topup(ws.id, amount, values.description);
    cliAudit(
      services,
      ws.id,
      'wallet.topped_up',
      { type: 'wallet', id: null },
      { amountMicros: amount },
    );
    print(
      `topped up ${formatMicros(amount, r.wallet.currency)}; balance ${formatMicros(r.wallet.balanceMicros, r.wallet.currency)}`,
      r,
    );
  },
  'contacts import': async ({ values, positional, open, print, io, json }) => {
    const file = need(positional[0], 'FILE.csv');
    if (!fs.existsSync(file)) throw new UsageError(`no file ${file}`);
    const env = environmentSchema.safeParse(values.env ?? 'test');
    if (!env.success) throw new UsageError('--env must be test or live');
    const { services } = open();
    const ws = services.workspaces.resolve(values.workspace);
    const bar = !json && io.isTTY;
    const show = (step: string, done: number, total: number) => {
      if (!bar) return;
      const pct = total ? Math.round((done / total) * 100) : 100;
      process.stderr.write(`\r${step} [${'#'.repeat(pct / 5).padEnd(20)}] ${pct}%   `);
    };
    // The same reader as the API's upload: encodings (UTF-16 too), delimiters, real exports.
    const size = fs.statSync(file).size;
    const read = await readImportStream(fs.createReadStream(file), {
      query: {},
      onProgress: (_rows, bytes) => show('checking', bytes, size),
    });
    const result = await services.contacts.commitImport(
      { workspaceId: ws.id, environment: env.data },
      read.rows,
      { groupId: null, total: read.total, failed: read.failed, errors: read.errors },
      { onProgress: (done, of) => show('importing', done, of) },
    );
    if (bar) process.stderr.write('\n');
    print(
      `${result.total} rows: ${result.created} created, ${result.updated} updated, ${result.failed} failed` +
        result.errors.map((e) => `\n  line ${e.line}: ${e.reason}`).join(''),
      result,
    );
  },
  'campaigns list': ({ values, open, print }) => {
    const environment = envOrUsage(values.env);
    const status = values.status;
    if (status !== undefined && !(CAMPAIGN_STATUSES as readonly string[]).includes(status))
      throw new UsageError(`--status must be one of ${CAMPAIGN_STATUSES.join(', ')}`);
    const { services } = open();
    const scope = { workspaceId: services.workspaces.resolve(values.workspace).id, environment };
    const all: Campaign[] = [];
    let cursor: string | undefined;
    do {
      const p = services.campaigns.list(scope, {
        limit: 200,
        ...(status ? { status: status as CampaignStatus } : {}),
        ...(cursor ? { cursor } : {}),
      });
      all.push(...p.data);
      cursor = p.nextCursor ?? undefined;
    } while (cursor);
    print(
      table(
        all.map((c) => ({
          id: c.id,
          name: c.name,
          status: c.status,
          'sent/total': `${c.metrics.sent}/${c.metrics.total}`,
          failed: String(c.metrics.failed),
        })),
      ),
      all,
    );
  },
  'campaigns show': ({ values, positional, open, print }) => {
    const id = need(positional[0], 'campaign ID');
    const { services } = open();
    const scope = campaignScope(services, id, values);
    const c = services.campaigns.get(scope, id);
    print(describeCampaign(services, scope, c), c);
  },
  'campaigns launch': async ({ values, positional, open, print, io, json }) => {
    const id = need(positional[0], 'campaign ID');
    const at = launchCampaignBody.shape.scheduledFor.safeParse(values.at);
    if (!at.success)
      throw new UsageError('--at must be an ISO 8601 time with a zone, e.g. 2026-05-01T09:00:00Z');
    const { services } = open();
    const scope = campaignScope(services, id, values);
    const before = services.campaigns.get(scope, id).status;
    const c = services.campaigns.launch(scope, {
      id,
      ...(at.data !== undefined ? { scheduledFor: at.data } : {}),
    });
    if (!values.wait) {
      const verb = before === 'paused' ? 'resumed' : 'launched';
      const when =
        c.status === 'scheduled'
          ? `scheduled for ${c.scheduledFor}`
          : `sending to ${c.metrics.total}`;
      print(
        `${verb} ${c.name} (${c.id}): ${when}\n` +
          'A running `parley serve` (or the app) sends it; `--wait` sends from here and shows progress.',
        c,
      );
      return;
    }
    const { campaign: end, interrupted } = await waitForCampaign(services, scope, id, io, json);
    if (interrupted) {
      if (json) io.out(JSON.stringify(end));
      io.err(
        `parley: stopped waiting; ${end.name} (${end.id}) is ${end.status} at ${percent(end.metrics)}% and goes on in any running parley serve`,
      );
      return 130;
    }
    if (end.status === 'completed') {
      const m = end.metrics;
      print(
        `${end.name} (${end.id}) completed: ${m.sent} sent, ${m.failed} failed, ${m.skipped} skipped`,
        end,
      );
      return 0;
    }
    if (json) io.out(JSON.stringify(end));
    io.err(`parley: ${end.name} (${end.id}) ${whyStopped(end)}`);
    return 1;
  },
  'campaigns pause': ({ values, positional, open, print }) => {
    const id = need(positional[0], 'campaign ID');
    const { services } = open();
    const c = services.campaigns.pause(campaignScope(services, id, values), id);
    print(
      `paused ${c.name} (${c.id}) at ${percent(c.metrics)}%: ${c.metrics.sent}/${c.metrics.total} sent; ` +
        `resume with parley campaigns launch ${c.id}`,
      c,
    );
  },
  'settings show': ({ values, open, print }) => {
    const { services } = open();
    const ws = services.workspaces.resolve(values.workspace);
    const settings = services.workspaces.settings(ws.id);
    const wallet = services.wallet.get(ws.id);
    print(
      `${ws.name} (${ws.id})\n` +
        `name                       ${settings.name}\n` +
        `businessAccountName        ${settings.businessAccountName}\n` +
        `allowPrivateWebhooks       ${settings.allowPrivateWebhooks}\n` +
        `lowBalanceThresholdMicros  ${settings.lowBalanceThresholdMicros} (${formatMicros(settings.lowBalanceThresholdMicros, wallet.currency)})\n` +
        `autoAssign                 ${settings.autoAssign}\n` +
        `assignOnFirstReply         ${settings.assignOnFirstReply}\n` +
        `publicUrl                  ${settings.publicUrl ?? '(this machine)'}`,
      { workspaceId: ws.id, ...settings },
    );
  },
  'settings set': ({ values, positional, open, print }) => {
    const key = need(
      positional[0],
      'setting KEY (allowPrivateWebhooks or lowBalanceThresholdMicros)',
    );
    const value = need(positional[1], `a VALUE for ${key}`);
    const patch = settingsPatch(key, value);
    // The API's own rules (a threshold's range, an http(s) URL).
    const checked = workspaceSettingsBody.safeParse(patch);
    if (!checked.success) throw new UsageError(checked.error.issues[0]!.message);
    const { services } = open();
    const ws = services.workspaces.resolve(values.workspace);
    // The same service PATCH /api/workspace/settings uses.
    const settings = services.workspaces.updateSettings(ws.id, checked.data);
    cliAudit(
      services,
      ws.id,
      'settings.updated',
      { type: 'workspace', id: ws.id },
      { fields: Object.keys(patch) },
    );
    const [name, set] = Object.entries(checked.data)[0]!;
    print(`${ws.name}: ${name} set to ${String(set)}`, { workspaceId: ws.id, ...settings });
  },
  'login-url': ({ values, dataDir, open, print }) => {
    let base: string;
    if (values.port !== undefined) {
      const port = Number(values.port);
      if (!Number.isInteger(port) || port < 1 || port > 65535)
        throw new UsageError('--port must be 1–65535');
      const host = values.host ?? '127.0.0.1';
      base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    } else {
      const last = lastServeUrl(dataDir);
      if (!last)
        throw new UsageError(
          'parley serve has not run on this data dir yet; start it, or pass --port',
        );
      base = last;
    }
    // A fresh link every time: single use, valid 10 minutes (README "Security").
    const url = loginUrl(base, open().services.members.mintLoginLink());
    print(url, { loginUrl: url, url: base, expiresInSeconds: LOGIN_LINK_TTL_MS / 1000 });
  },
  backup: ({ positional, open, print }) => {
    const file = path.resolve(need(positional[0], 'backup FILE'));
    if (fs.existsSync(file)) throw new UsageError(`${file} exists already; choose a new file name`);
    const mediaDir = `${file}.media`;
    if (fs.existsSync(mediaDir)) {
      throw new UsageError(`${mediaDir} exists already; choose a new file name`);
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const { db, services } = open();
    // The database only: the data key that opens its sealed secrets (secret.key, or the OS
    // keychain) is not in it. Created 0600 first: VACUUM INTO fills an empty file, keeping its mode.
    privateFile.create(file);
    try {
      db.prepare('VACUUM INTO ?').run(file);
    } catch (e) {
      fs.rmSync(file, { force: true });
      throw e;
    }
    const bytes = fs.statSync(file).size;
    // The media files the copy's records hold (named by their SHA-256, as in data-dir/media/):
    // after the database, so every file a copied record names is there (a file stored since
    // may be too; retention may have removed one since, which its record then says).
    const media = services.media.copyFiles(mediaDir);
    print(
      `backup written to ${file} (${bytes} bytes) and ${media.files} media files to ${mediaDir} (${media.bytes} bytes)`,
      { file, bytes, mediaDir, mediaFiles: media.files, mediaBytes: media.bytes },
    );
  },
};

function retentionOrUsage(env: NodeJS.ProcessEnv) {
  try {
    return retentionFromEnv(env);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

async function serve(values: Values, dataDir: string, io: Io, json: boolean): Promise<number> {
  const port = Number(values.port ?? process.env.PARLEY_PORT ?? 4780);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError('--port must be 0–65535');
  const certFile = values['tls-cert'];
  const keyFile = values['tls-key'];
  if (!certFile !== !keyFile) throw new UsageError('--tls-cert and --tls-key go together');
  // Off loopback the desk speaks TLS only: a --host there is the team desk.
  const team =
    values.team === true ||
    values.announce === true ||
    certFile !== undefined ||
    (values.host !== undefined && !isLoopback(values.host));
  const host = team ? '127.0.0.1' : (values.host ?? '127.0.0.1');
  const rendererDir = fileURLToPath(new URL('../renderer/', import.meta.url));
  const wildcard = isWildcard(host);
  const core = await createCore({
    dataDir,
    rendererDir,
    ...rateLimitFromEnv(process.env.PARLEY_RATE_LIMIT),
    retention: retentionOrUsage(process.env),
    extraHosts: wildcard || team ? [] : [host],
  });
  let url: string;
  let shared: Awaited<ReturnType<typeof core.team.share>> | null = null;
  const teamHost = values.host ?? '0.0.0.0';
  try {
    // The team desk's TLS listener takes --port; this machine's own (plain HTTP, loopback only,
    // for the owner's browser and `parley login-url`) a free port beside it.
    ({ url } = await core.start({ host, port: team ? 0 : port }));
    if (team) {
      shared = await core.team.share({
        enabled: true,
        host: teamHost,
        port,
        announce: values.announce === true,
        certFile,
        keyFile,
      });
    }
  } catch (e) {
    await core.stop();
    throw e;
  }
  // A wildcard bind listens everywhere; a browser on this machine reaches it on loopback.
  const local = wildcard ? url.replace(/^http:\/\/(?:0\.0\.0\.0|\[::\])/, 'http://127.0.0.1') : url;
  const signIn = core.loginUrl(local);
  try {
    recordServeUrl(dataDir, local);
  } catch (e) {
    io.err(`parley: cannot note the serving address in ${dataDir}: ${(e as Error).message}`);
  }
  if (shared) {
    const status = shared.status;
    // Where this machine reaches the TLS listener (tests and the e2e connect there, never to a
    // LAN address).
    const teamUrl = `https://${isWildcard(teamHost) ? '127.0.0.1' : teamHost.includes(':') ? `[${teamHost}]` : teamHost}:${status.port}`;
    if (json) {
      io.out(
        JSON.stringify({
          url: local,
          dataDir,
          loginUrl: signIn,
          team: { ...status, url: teamUrl, renewed: shared.renewed },
        }),
      );
    } else {
      describeSharing(shared, io, { url: local, signIn }, teamHost);
      io.err(`parley: data in ${dataDir}; API reference at ${local}/docs; Ctrl+C stops`);
    }
  } else if (json) {
    io.out(JSON.stringify({ url, dataDir, loginUrl: signIn }));
  } else {
    io.out(`listening on ${url}`);
    io.out(`sign in: ${signIn}`);
    io.err(`parley: data in ${dataDir}; API reference at ${url}/docs; Ctrl+C stops`);
  }
  await new Promise<void>((resolve) => {
    let stopping = false;
    // Repeated signals (a process group kill plus a forwarded one) must not cut the clean stop short.
    const stop = () => {
      if (stopping) return;
      stopping = true;
      core.stop().then(resolve, (e) => {
        io.err(`parley: error while stopping: ${(e as Error).message}`);
        resolve();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return 0;
}

/** `PARLEY_RATE_LIMIT=perSecond[:burst]` overrides the per-key limit (default 100/s, burst 200). */
function rateLimitFromEnv(value: string | undefined): {
  rateLimit?: { perSecond: number; burst: number };
} {
  if (!value) return {};
  const m = /^(\d+)(?::(\d+))?$/.exec(value.trim());
  if (!m || Number(m[1]) <= 0)
    throw new UsageError('PARLEY_RATE_LIMIT must look like 100 or 100:200');
  const perSecond = Number(m[1]);
  return { rateLimit: { perSecond, burst: m[2] ? Number(m[2]) : perSecond * 2 } };
}

/** `settings set KEY VALUE`: the workspace settings a script may change, checked like the API. */
function settingsPatch(key: string, value: string): Partial<WorkspaceSettings> {
  switch (key) {
    case 'allowPrivateWebhooks':
    case 'autoAssign':
    case 'assignOnFirstReply':
      if (value !== 'true' && value !== 'false')
        throw new UsageError(`${key} must be true or false`);
      return { [key]: value === 'true' };
    case 'lowBalanceThresholdMicros': {
      if (!/^\d{1,15}$/.test(value) || !Number.isSafeInteger(Number(value)))
        throw new UsageError(
          'lowBalanceThresholdMicros must be a whole number of micros, e.g. 5000000',
        );
      return { lowBalanceThresholdMicros: Number(value) };
    }
    case 'lowBalanceThreshold': {
      const micros = parseAmountToMicros(value);
      if (micros === null) throw new UsageError('lowBalanceThreshold must be an amount like 5.00');
      return { lowBalanceThresholdMicros: micros };
    }
    case 'publicUrl':
      return { publicUrl: value === 'none' ? null : value };
    case 'name':
    case 'businessAccountName':
      return { [key]: value };
    default:
      throw new UsageError(
        `unknown setting "${key}" (name, businessAccountName, allowPrivateWebhooks, lowBalanceThresholdMicros, lowBalanceThreshold, autoAssign, assignOnFirstReply, publicUrl)`,
      );
  }
}

/**
 * Campaign ID's scope: its own (like `keys revoke ID`), so a live campaign needs no `--env`;
 * a `--workspace` or `--env` that names another scope finds nothing, as the API would answer.
 */
function campaignScope(services: Services, id: string, values: Values): Scope {
  const env = values.env === undefined ? null : envOrUsage(values.env);
  const ws = values.workspace ? services.workspaces.resolve(values.workspace) : null;
  const row = services.campaigns.byId(id);
  if (!row || (ws && row.workspace_id !== ws.id) || (env && row.environment !== env))
    throw new ApiError('not_found', `no campaign ${id}`, { param: 'id' });
  return { workspaceId: row.workspace_id, environment: row.environment };
}

const percent = (p: CampaignProgress) => Math.floor(doneShare(p) * 100);

const rate = (perSecond: number) => `${perSecond >= 10 ? Math.round(perSecond) : perSecond}/s`;

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600)
    return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor(seconds / 60) % 60).padStart(2, '0')}m`;
}

const HELD_BY = {
  tier: 'the messaging tier',
  pair_rate: 'the pair rate',
  throughput: 'throughput',
};

const BAR_WIDTH = 20;

/** `[#########-----] 62% 620/1000 sent · 3 failed · 80/s · ETA 5s` */
function progressLine(c: Campaign): string {
  const p = c.metrics;
  const filled = Math.floor(doneShare(p) * BAR_WIDTH);
  const parts = [
    `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${percent(p)}% ${p.sent}/${p.total} sent`,
    `${p.failed} failed`,
  ];
  if (p.retrying > 0) parts.push(`${p.retrying} retrying`);
  if (p.skipped > 0) parts.push(`${p.skipped} skipped`);
  if (c.status === 'scheduled') parts.push(`scheduled for ${c.scheduledFor}`);
  if (c.status === 'sending') {
    parts.push(rate(p.ratePerSecond));
    if (p.etaSeconds !== null) parts.push(`ETA ${duration(p.etaSeconds)}`);
    // Throughput is the ordinary pace; the others hold the campaign up for a while.
    if (p.blockedBy && p.blockedBy !== 'throughput')
      parts.push(`held by ${HELD_BY[p.blockedBy]} until ${p.blockedUntil}`);
  }
  return parts.join(' · ');
}

/** Why a campaign stopped short of `completed`, in one line. */
function whyStopped(c: Campaign): string {
  const p = c.metrics;
  const where = `at ${percent(p)}% (${p.sent}/${p.total} sent, ${p.failed} failed, ${p.skipped} skipped)`;
  const resume = `resume with parley campaigns launch ${c.id}`;
  switch (c.status) {
    case 'paused':
      if (c.pauseReason === 'insufficient_balance')
        return `paused ${where}: the wallet cannot pay for the next message (insufficient_balance); top it up (parley wallet topup) and ${resume}`;
      if (c.pauseReason === 'error_rate')
        return `paused ${where}: more than half of the last 100 attempts failed (error_rate); look at its failed recipients, then ${resume}`;
      return `was paused ${where}; ${resume}`;
    case 'failed':
      return `failed ${where}: ${c.failureReason ?? 'the runner stopped'}`;
    case 'cancelled':
      return `was cancelled ${where}`;
    default:
      return `is ${c.status} ${where}`;
  }
}

const POLL_MS = 200;

/**
 * `campaigns launch --wait`: runs the core's scheduler in this process (a running serve shares
 * the work: each pass is claimed in its own IMMEDIATE transaction) and shows progress until the
 * campaign ends or pauses. On a TTY one line redrawn on stderr (at most 5×/s); otherwise a line
 * per 10% step. SIGINT/SIGTERM stop waiting, not the campaign.
 */
async function waitForCampaign(
  services: Services,
  scope: Scope,
  id: string,
  io: Io,
  json: boolean,
): Promise<{ campaign: Campaign; interrupted: boolean }> {
  const redraw = !json && io.isTTY;
  const steps = !json && !io.isTTY;
  let interrupted = false;
  let wake = () => {};
  const onSignal = () => {
    interrupted = true;
    wake();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let drawn = false;
  let lastStep = -1;
  services.scheduler.start();
  try {
    for (;;) {
      const c = services.campaigns.get(scope, id);
      const step = Math.floor(percent(c.metrics) / 10);
      if (redraw) {
        process.stderr.write(`\r${progressLine(c)}\x1b[K`);
        drawn = true;
      } else if (steps && step > lastStep) {
        io.err(progressLine(c));
        lastStep = step;
      }
      if (isFinalCampaign(c.status) || c.status === 'paused' || interrupted) {
        return { campaign: c, interrupted: interrupted && !isFinalCampaign(c.status) };
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (drawn) process.stderr.write('\n');
    await services.scheduler.stop();
  }
}

/** `campaigns show`: key: value lines, then the funnel. */
function describeCampaign(services: Services, scope: Scope, c: Campaign): string {
  let target: string;
  if (c.target.groupId) {
    let name: string | null = null;
    try {
      name = services.contacts.getGroup(scope, c.target.groupId).name;
    } catch {
      // The group was deleted since: its id still says what was meant.
    }
    target = name ? `group ${name} (${c.target.groupId})` : `group ${c.target.groupId}`;
  } else {
    target = `filter ${JSON.stringify(c.target.filter)}`;
  }
  const p = c.metrics;
  const lines: [string, string][] = [
    ['id', c.id],
    ['name', c.name],
    ['status', c.status],
    ...(c.pauseReason ? ([['pause reason', c.pauseReason]] as [string, string][]) : []),
    ...(c.failureReason ? ([['failure reason', c.failureReason]] as [string, string][]) : []),
    ['environment', c.environment],
    ['template', c.templateName],
    ['variables', JSON.stringify(c.variables)],
    ['target', target],
    ['scheduled for', c.scheduledFor ?? '-'],
    ['created', c.createdAt],
    ['launched', c.launchedAt ?? '-'],
    ['completed', c.completedAt ?? '-'],
  ];
  const share = (n: number) => (p.total > 0 ? `  (${Math.floor((n / p.total) * 100)}%)` : '');
  const funnel: [string, string][] = [
    ['total', String(p.total)],
    ['pending', String(p.pending)],
    ['retrying', String(p.retrying)],
    ['sent', `${p.sent}${share(p.sent)}`],
    ['delivered', `${p.delivered}${share(p.delivered)}`],
    ['read', `${p.read}${share(p.read)}`],
    ['failed', `${p.failed}${share(p.failed)}`],
    ['skipped', String(p.skipped)],
  ];
  if (c.status === 'sending') {
    funnel.push(['rate', rate(p.ratePerSecond)]);
    funnel.push(['eta', p.etaSeconds === null ? '-' : duration(p.etaSeconds)]);
    if (p.blockedBy) funnel.push(['held by', `${HELD_BY[p.blockedBy]} until ${p.blockedUntil}`]);
  }
  const kv = (rows: [string, string][], indent: string) => {
    const width = Math.max(...rows.map(([k]) => k.length)) + 1;
    return rows.map(([k, v]) => `${indent}${`${k}:`.padEnd(width)}  ${v}`).join('\n');
  };
  return `${kv(lines, '')}\n\nfunnel:\n${kv(funnel, '  ')}`;
}
