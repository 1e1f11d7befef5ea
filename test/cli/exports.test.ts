import { parse } from 'csv-parse/sync';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliHarness, withStore } from './harness.ts';

const { dataDir, parley, json } = cliHarness('parley-cli-export-');

const phone = (i: number) => `+1415555${String(i).padStart(4, '0')}`;

/** Contacts in the first workspace's test scope; returns a group of the first one. */
function seed(dir: string): string {
  return withStore(dir, ({ services }) => {
    const scope = { workspaceId: services.workspaces.resolve().id, environment: 'test' } as const;
    const ids = [
      { phone: phone(1), name: 'Ada Lovelace', labels: ['vip'], attributes: { plan: 'pro' } },
      { phone: phone(2), name: '=HYPERLINK("http://evil.example")', labels: ['vip'] },
      { phone: phone(3), name: 'Cy Young', email: 'cy@example.com' },
    ].map((c) => services.contacts.upsert(scope, c).contact.id);
    services.contacts.upsert(
      { workspaceId: scope.workspaceId, environment: 'live' },
      { phone: phone(9), name: 'Live Only' },
    );
    return services.contacts.createGroup(scope, 'Pilot', [ids[0]!]).id;
  });
}

const rowsOf = (csv: string) => {
  expect(csv.startsWith('\uFEFF')).toBe(true);
  const [header, ...body] = parse(csv, { bom: true }) as string[][];
  return body.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
};

describe('parley contacts export', () => {
  it('writes the CSV to stdout with the filters, formula-safe, and is in the audit trail', async () => {
    const dir = dataDir();
    const group = seed(dir);

    const all = await parley(['contacts', 'export'], dir);
    expect(all.code).toBe(0);
    expect(all.stderr).toBe('');
    const rows = rowsOf(all.stdout);
    expect(rows.map((r) => r.name)).toEqual([
      'Cy Young',
      `'=HYPERLINK("http://evil.example")`,
      'Ada Lovelace',
    ]);
    expect(rows[2]).toMatchObject({ phone: `'${phone(1)}`, labels: 'vip', plan: 'pro' });

    const vip = rowsOf((await parley(['contacts', 'export', '--label', 'vip'], dir)).stdout);
    expect(vip.map((r) => r.name)).toHaveLength(2);
    const q = rowsOf((await parley(['contacts', 'export', '--q', 'young'], dir)).stdout);
    expect(q.map((r) => r.name)).toEqual(['Cy Young']);
    const inGroup = rowsOf((await parley(['contacts', 'export', '--group', group], dir)).stdout);
    expect(inGroup.map((r) => r.name)).toEqual(['Ada Lovelace']);
    const live = rowsOf((await parley(['contacts', 'export', '--env', 'live'], dir)).stdout);
    expect(live.map((r) => r.name)).toEqual(['Live Only']);

    const unknown = await parley(['contacts', 'export', '--group', 'grp_nothing'], dir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^parley: no group grp_nothing/);

    const trail = withStore(dir, ({ services }) =>
      services.audit.list(services.workspaces.resolve().id, { action: 'export.created' }, 10),
    ).data;
    expect(trail).toHaveLength(5);
    expect(trail[0]).toMatchObject({
      actor: { kind: 'cli', id: 'cli' },
      target: { type: 'contacts' },
      details: { environment: 'live', filter: {} },
    });
    expect(trail.map((e) => e.details.filter)).toContainEqual({ group });
  });

  it('writes a file (0600) with --out; --json answers what it wrote; the file imports back', async () => {
    const dir = dataDir();
    seed(dir);
    const file = path.join(dir, 'contacts.csv');
    const answer = await json(['contacts', 'export', '--label', 'vip', '--out', file], dir);
    expect(answer).toMatchObject({ file, rows: 2, environment: 'test', filter: { label: 'vip' } });
    expect(rowsOf(fs.readFileSync(file, 'utf8'))).toHaveLength(2);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const human = await parley(['contacts', 'export', '--out', file], dir);
    expect(human.stdout.trim()).toBe(`exported 3 contacts to ${file}`);

    // Without --out, stdout is the CSV: --json has nowhere to go.
    const refused = await parley(['contacts', 'export', '--json'], dir);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error.code).toBe('usage');

    // Taken out and brought back: the same contacts in another data dir.
    const other = dataDir();
    const imported = await json(['contacts', 'import', file], other);
    expect(imported).toMatchObject({ total: 3, created: 3, failed: 0 });
    const again = rowsOf((await parley(['contacts', 'export'], other)).stdout);
    expect(again.map((r) => [r.phone, r.name]).sort()).toEqual(
      rowsOf(fs.readFileSync(file, 'utf8'))
        .map((r) => [r.phone, r.name])
        .sort(),
    );
  });
});
