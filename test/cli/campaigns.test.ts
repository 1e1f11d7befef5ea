import { BIN, cliHarness } from './harness.ts';
import { execFileSync, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../main/core/core.ts';
import { funnelHolds } from '../../shared/campaign-rules.ts';
import { campaignSchema } from '../../shared/schemas/campaigns.ts';
import { seedCampaign } from '../helpers.ts';

const { children, dataDir, parley } = cliHarness('parley-cmp-cli-');
const json = async (args: string[], dir: string) => {
  const r = await parley([...args, '--json'], dir);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

/** Fast enough that `--wait` ends in a moment: the account's full rate, quick receipts. */
const FAST = { throughputMps: 1000, deliveryLatencyMs: 20, readLatencyMs: 20 };

/** `[####----] 40% 12/30 sent · 0 failed · 80/s · ETA 1s` */
const PROGRESS = /^\[([#-]{20})\] (\d{1,3})% (\d+)\/(\d+) sent · (\d+) failed( · .+)?$/;

const messagesOf = (dir: string, campaignId: string) => {
  const store = openStore({ dataDir: dir });
  try {
    return store.db
      .prepare(
        'SELECT contact_id AS contactId, count(*) AS n FROM messages WHERE campaign_id = ? GROUP BY contact_id',
      )
      .all(campaignId) as { contactId: string; n: number }[];
  } finally {
    store.close();
  }
};

describe('parley campaigns', () => {
  it('lists, shows, launches and pauses, each with --json giving the API’s record', async () => {
    const dir = dataDir();
    const a = seedCampaign(dir, { contacts: 30, name: 'Spring sale' });
    const b = seedCampaign(dir, { contacts: 5, name: 'Restock', firstPhone: 100 });
    const live = seedCampaign(dir, { contacts: 3, name: 'Live one', env: 'live', firstPhone: 200 });

    // list: the test environment by default, one array of records like `keys list --json`.
    const listed = await json(['campaigns', 'list'], dir);
    expect(listed.map((c: { id: string }) => c.id).sort()).toEqual(
      [a.campaignId, b.campaignId].sort(),
    );
    for (const c of listed) expect(campaignSchema.parse(c)).toEqual(c);
    expect(await json(['campaigns', 'list', '--env', 'live'], dir)).toMatchObject([
      { id: live.campaignId, environment: 'live', status: 'draft' },
    ]);
    expect(await json(['campaigns', 'list', '--status', 'sending'], dir)).toEqual([]);
    const table = await parley(['campaigns', 'list'], dir);
    expect(table.code).toBe(0);
    const rows = table.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^ID\s+NAME\s+STATUS\s+SENT\/TOTAL\s+FAILED$/);
    expect(rows.find((r) => r.startsWith(a.campaignId))).toMatch(/Spring sale\s+draft\s+0\/0\s+0$/);
    expect(
      (
        await parley(['campaigns', 'list', '--env', 'live', '--status', 'paused'], dir)
      ).stdout.trim(),
    ).toBe('(none)');

    // show: the record; a live campaign is found by its id without --env, not with the wrong one.
    const shown = await json(['campaigns', 'show', a.campaignId], dir);
    expect(campaignSchema.parse(shown)).toEqual(shown);
    expect(shown).toMatchObject({
      id: a.campaignId,
      name: 'Spring sale',
      status: 'draft',
      templateName: 'notice',
      target: { groupId: a.groupId },
      environment: 'test',
    });
    expect((await json(['campaigns', 'show', live.campaignId], dir)).environment).toBe('live');
    const wrongEnv = await parley(['campaigns', 'show', live.campaignId, '--env', 'test'], dir);
    expect([wrongEnv.code, wrongEnv.stderr.trim()]).toEqual([
      1,
      `parley: no campaign ${live.campaignId}`,
    ]);

    // launch: draft → sending, recipients fixed (no core runs here, so nothing is sent yet).
    const launched = await json(['campaigns', 'launch', a.campaignId], dir);
    expect(campaignSchema.parse(launched)).toEqual(launched);
    expect(launched).toMatchObject({
      id: a.campaignId,
      status: 'sending',
      metrics: { status: 'sending', total: 30, pending: 30, sent: 0 },
    });
    expect(launched.launchedAt).not.toBeNull();
    const human = await parley(['campaigns', 'launch', b.campaignId], dir);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(`^launched Restock \\(${b.campaignId}\\): sending to 5\\n`),
    );

    const detail = await parley(['campaigns', 'show', a.campaignId], dir);
    expect(detail.code).toBe(0);
    expect(detail.stdout).toMatch(new RegExp(`^id: +${a.campaignId}$`, 'm'));
    expect(detail.stdout).toMatch(/^status: +sending$/m);
    expect(detail.stdout).toMatch(/^target: +group Spring sale audience \(grp_\w+\)$/m);
    expect(detail.stdout).toMatch(/^funnel:\n {2}total: +30\n {2}pending: +30\n/m);
    expect(detail.stdout).toMatch(/^ {2}sent: +0 +\(0%\)$/m);
    expect(detail.stdout).toMatch(/^ {2}eta: +\d+s$/m);
    expect(detail.stdout).not.toMatch(/pause reason/);

    // pause, then launch resumes it.
    const paused = await json(['campaigns', 'pause', a.campaignId], dir);
    expect(paused).toMatchObject({ id: a.campaignId, status: 'paused', pauseReason: null });
    const pausedHuman = await parley(['campaigns', 'pause', b.campaignId], dir);
    expect(pausedHuman.stdout.trim()).toBe(
      `paused Restock (${b.campaignId}) at 0%: 0/5 sent; resume with parley campaigns launch ${b.campaignId}`,
    );
    expect((await json(['campaigns', 'list', '--status', 'paused'], dir)).length).toBe(2);
    const resumed = await parley(['campaigns', 'launch', b.campaignId], dir);
    expect(resumed.stdout).toMatch(
      new RegExp(`^resumed Restock \\(${b.campaignId}\\): sending to 5`),
    );

    // --at schedules it.
    const at = new Date(Date.now() + 3600_000).toISOString();
    const scheduled = await json(['campaigns', 'launch', live.campaignId, '--at', at], dir);
    expect(scheduled).toMatchObject({ status: 'scheduled', scheduledFor: at, environment: 'live' });
    expect(scheduled.metrics.total).toBe(3);
  }, 30_000);

  it('launch --wait sends from this process and prints a line per 10% without a TTY', async () => {
    const dir = dataDir();
    const { campaignId, contactIds } = seedCampaign(dir, { contacts: 30, simulator: FAST });
    const started = Date.now();
    const r = await parley(['campaigns', 'launch', campaignId, '--wait'], dir);
    const took = Date.now() - started;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(
      `Spring sale (${campaignId}) completed: 30 sent, 0 failed, 0 skipped`,
    );
    const lines = r.stderr.trim().split('\n');
    const steps = lines.map((l) => {
      const m = PROGRESS.exec(l);
      expect(m, l).not.toBeNull();
      const [, bar, pct, sent, total] = m!;
      expect(Number(total)).toBe(30);
      expect(bar!.split('#').length - 1).toBe(Math.floor(Number(pct) / 5));
      return { pct: Number(pct), sent: Number(sent) };
    });
    // One line per 10% step at most: each line in a later step than the one before, 100% last.
    for (let i = 1; i < steps.length; i++) {
      expect(Math.floor(steps[i]!.pct / 10)).toBeGreaterThan(Math.floor(steps[i - 1]!.pct / 10));
    }
    expect(steps.at(-1)).toEqual({ pct: 100, sent: 30 });
    expect(lines.length).toBeLessThanOrEqual(11);
    expect(took).toBeLessThan(15_000);

    // Every contact got its one message; the funnel holds.
    const shown = await json(['campaigns', 'show', campaignId], dir);
    expect(shown).toMatchObject({
      status: 'completed',
      metrics: { total: 30, sent: 30, failed: 0 },
    });
    expect(shown.completedAt).not.toBeNull();
    expect(funnelHolds(shown.metrics)).toBe(true);
    const sent = messagesOf(dir, campaignId);
    expect(sent.map((m) => m.contactId).sort()).toEqual([...contactIds].sort());
    expect(sent.every((m) => m.n === 1)).toBe(true);

    // The scheduler stopped with the command: no lease is left in this process's name.
    const store = openStore({ dataDir: dir });
    const leased = store.db
      .prepare('SELECT count(*) FROM jobs WHERE lease_owner IS NOT NULL')
      .pluck()
      .get();
    store.close();
    expect(leased).toBe(0);
  });

  it('launch --wait --json prints only the final record', async () => {
    const dir = dataDir();
    const { campaignId } = seedCampaign(dir, { contacts: 12, simulator: FAST });
    const r = await parley(['campaigns', 'launch', campaignId, '--wait', '--json'], dir);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const end = JSON.parse(r.stdout);
    expect(campaignSchema.parse(end)).toEqual(end);
    expect(end).toMatchObject({ id: campaignId, status: 'completed', metrics: { sent: 12 } });
  });

  it('launch --wait exits 1 and says why when the campaign pauses', async () => {
    const dir = dataDir();
    // A live campaign with money for 4 of its 10 UTILITY messages (5,000 micros each).
    const { campaignId } = seedCampaign(dir, {
      contacts: 10,
      env: 'live',
      simulator: FAST,
    });
    await json(['wallet', 'topup', '--amount', '0.02'], dir);
    const r = await parley(['campaigns', 'launch', campaignId, '--wait'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const last = r.stderr.trim().split('\n').at(-1)!;
    expect(last).toBe(
      `parley: Spring sale (${campaignId}) paused at 40% (4/10 sent, 0 failed, 0 skipped): the wallet cannot pay for the next message (insufficient_balance); top it up (parley wallet topup) and resume with parley campaigns launch ${campaignId}`,
    );
    const j = await parley(['campaigns', 'show', campaignId, '--json'], dir);
    expect(JSON.parse(j.stdout)).toMatchObject({
      status: 'paused',
      pauseReason: 'insufficient_balance',
    });
    expect((await parley(['campaigns', 'show', campaignId], dir)).stdout).toMatch(
      /^pause reason: +insufficient_balance$/m,
    );

    // Topped up, it resumes and ends.
    await json(['wallet', 'topup', '--amount', '1.00'], dir);
    const again = await parley(['campaigns', 'launch', campaignId, '--wait', '--json'], dir);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'completed', metrics: { sent: 10 } });
  });

  it('fails with one line: exit 1 for unknown ids and wrong states, 2 for bad arguments', async () => {
    const dir = dataDir();
    const { campaignId } = seedCampaign(dir, { contacts: 3, simulator: FAST });
    expect((await parley(['campaigns', 'launch', campaignId, '--wait'], dir)).code).toBe(0);
    const cases: [string[], RegExp | string, number][] = [
      [['campaigns', 'show', 'cmp_nope'], 'parley: no campaign cmp_nope', 1],
      [['campaigns', 'launch', 'cmp_nope'], 'parley: no campaign cmp_nope', 1],
      [['campaigns', 'pause', 'cmp_nope'], 'parley: no campaign cmp_nope', 1],
      [
        ['campaigns', 'launch', campaignId],
        `parley: campaign ${campaignId} is completed and cannot be launched`,
        1,
      ],
      [
        ['campaigns', 'launch', campaignId, '--wait'],
        `parley: campaign ${campaignId} is completed and cannot be launched`,
        1,
      ],
      [
        ['campaigns', 'pause', campaignId],
        `parley: campaign ${campaignId} is completed and cannot be paused`,
        1,
      ],
      [
        ['campaigns', 'launch', campaignId, '--at', '2020-01-01T00:00:00Z'],
        `parley: campaign ${campaignId} is completed and cannot be launched`,
        1,
      ],
      [
        ['campaigns', 'show', campaignId, '--workspace', 'ws_nope'],
        'parley: no workspace ws_nope',
        1,
      ],
      [['campaigns', 'show'], /^parley: missing campaign ID \(see parley --help\)$/, 2],
      [['campaigns', 'launch'], /^parley: missing campaign ID/, 2],
      [['campaigns', 'pause'], /^parley: missing campaign ID/, 2],
      [['campaigns', 'list', '--status', 'done'], /^parley: --status must be one of draft, /, 2],
      [['campaigns', 'list', '--env', 'prod'], /^parley: --env must be test or live/, 2],
      [
        ['campaigns', 'show', campaignId, '--env', 'prod'],
        /^parley: --env must be test or live/,
        2,
      ],
      [
        ['campaigns', 'launch', campaignId, '--at', 'tomorrow'],
        /^parley: --at must be an ISO 8601/,
        2,
      ],
      [['campaigns', 'launch', campaignId, '--wiat'], /^parley: Unknown option '--wiat'/, 2],
      [['campaigns', 'frobnicate'], /^parley: unknown command "campaigns frobnicate"/, 2],
    ];
    for (const [args, message, code] of cases) {
      const r = await parley(args, dir);
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      if (typeof message === 'string') expect(r.stderr.trim(), args.join(' ')).toBe(message);
      else expect(r.stderr.trim(), args.join(' ')).toMatch(message);
      expect(r.stdout, args.join(' ')).toBe('');
    }
    // A draft scheduled in the past is the API's validation error.
    const draft = seedCampaign(dir, { contacts: 2, name: 'Later' });
    const past = await parley(
      ['campaigns', 'launch', draft.campaignId, '--at', '2020-01-01T00:00:00Z'],
      dir,
    );
    expect([past.code, past.stderr.trim()]).toEqual([
      1,
      'parley: scheduledFor must be in the future',
    ]);
    const j = await parley(['campaigns', 'pause', campaignId, '--json'], dir);
    expect(JSON.parse(j.stdout)).toEqual({
      error: {
        code: 'invalid_state',
        message: `campaign ${campaignId} is completed and cannot be paused`,
      },
    });
    expect(
      JSON.parse((await parley(['campaigns', 'show', 'cmp_nope', '--json'], dir)).stdout),
    ).toEqual({
      error: { code: 'not_found', message: 'no campaign cmp_nope' },
    });
    expect((await parley(['--help'], dir)).stdout).toMatch(
      /campaigns launch ID \[--at ISO\] \[--wait\]/,
    );
  }, 30_000);

  // A pseudo-terminal from util-linux `script` (Debian's essential bsdutils: always there in CI).
  it('on a TTY it redraws one line in place (\\r), at most 5 times a second', async () => {
    const dir = dataDir();
    // 200 recipients at 80/s: about 3 s of sending.
    const { campaignId } = seedCampaign(dir, {
      contacts: 200,
      simulator: { throughputMps: 80, deliveryLatencyMs: 20, readLatencyMs: 20 },
    });
    const started = Date.now();
    // `script` gives the command a pseudo-terminal (stdout and stderr both go to it).
    const out = execFileSync(
      'script',
      [
        '-qec',
        `"${process.execPath}" "${BIN}" campaigns launch ${campaignId} --wait --data-dir "${dir}"`,
        '/dev/null',
      ],
      { encoding: 'utf8' },
    );
    const seconds = (Date.now() - started) / 1000;
    const [bar, summary] = out.split(/\r?\n/);
    expect(summary).toBe(`Spring sale (${campaignId}) completed: 200 sent, 0 failed, 0 skipped`);
    const frames = bar!.split('\r').filter(Boolean);
    expect(frames.length).toBeGreaterThanOrEqual(3);
    expect(frames.length).toBeLessThanOrEqual(5 * seconds + 2);
    let last = -1;
    for (const frame of frames) {
      // Each frame erases what a longer one before it left (ESC [ K).
      expect(frame.endsWith('\x1b[K'), JSON.stringify(frame)).toBe(true);
      const m = PROGRESS.exec(frame.slice(0, -3));
      expect(m, frame).not.toBeNull();
      expect(Number(m![2])).toBeGreaterThanOrEqual(last);
      last = Number(m![2]);
    }
    expect(last).toBe(100);
  });

  it('Ctrl-C stops waiting, not the campaign: a running serve finishes it, each contact once', async () => {
    const dir = dataDir();
    const { campaignId, contactIds } = seedCampaign(dir, {
      contacts: 60,
      simulator: { throughputMps: 20, deliveryLatencyMs: 20, readLatencyMs: 20 },
    });
    const key = (await json(['keys', 'create', '--env', 'test', '--name', 'k'], dir)).key as string;
    const server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dir], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.push(server);
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      server.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });

    // The CLI sends beside the server: both run the campaign's passes, one at a time.
    const cli = spawn(
      process.execPath,
      [BIN, 'campaigns', 'launch', campaignId, '--wait', '--data-dir', dir],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(cli);
    let stderr = '';
    let stdout = '';
    cli.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no progress: ${stderr}`)), 15_000);
      cli.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        // Interrupted once a 10% step shows, well before the end.
        if (/\] [1-9]\d% /.test(stderr)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    cli.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stdout).toBe('');
    const last = stderr.trim().split('\n').at(-1)!;
    expect(last).toMatch(
      new RegExp(
        `^parley: stopped waiting; Spring sale \\(${campaignId}\\) is sending at \\d+% and goes on in any running parley serve$`,
      ),
    );

    let progress: { status: string; sent: number; total: number } | undefined;
    for (let i = 0; i < 150 && progress?.status !== 'completed'; i++) {
      const res = await fetch(`${url}/campaigns/${campaignId}/progress`, {
        headers: { 'x-api-key': key },
      });
      progress = (await res.json()) as typeof progress;
      if (progress!.status !== 'completed') await new Promise((r) => setTimeout(r, 100));
    }
    expect(progress).toMatchObject({ status: 'completed', sent: 60, total: 60 });
    expect(funnelHolds(progress as never)).toBe(true);
    const sent = messagesOf(dir, campaignId);
    expect(sent.map((m) => m.contactId).sort()).toEqual([...contactIds].sort());
    expect(sent.filter((m) => m.n !== 1)).toEqual([]);
    const stopped = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await stopped;
  }, 40_000);
});
