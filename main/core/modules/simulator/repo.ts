import type { Database as Db } from 'better-sqlite3';

/**
 * The simulator's stored settings (one JSON per workspace) and the active business account's
 * tier and throughput, which it reads and writes.
 */
export function simulatorRepo(db: Db) {
  const get = db.prepare('SELECT settings FROM simulator_settings WHERE workspace_id = ?').pluck();
  const put = db.prepare(
    `INSERT INTO simulator_settings (workspace_id, settings) VALUES (?, ?)
     ON CONFLICT (workspace_id) DO UPDATE SET settings = excluded.settings`,
  );
  const account = db.prepare(
    'SELECT messaging_tier, throughput_mps FROM business_accounts WHERE workspace_id = ? AND active = 1',
  );
  const setTier = db.prepare(
    'UPDATE business_accounts SET messaging_tier = ? WHERE workspace_id = ? AND active = 1',
  );
  const setThroughput = db.prepare(
    'UPDATE business_accounts SET throughput_mps = ? WHERE workspace_id = ? AND active = 1',
  );
  return {
    /** The stored settings (JSON), if any were changed. */
    get: (workspaceId: string) => get.get(workspaceId) as string | undefined,
    put: (workspaceId: string, json: string) => put.run(workspaceId, json),
    account: (workspaceId: string) =>
      account.get(workspaceId) as
        { messaging_tier: number | null; throughput_mps: number } | undefined,
    setTier: (workspaceId: string, tier: number | null) => setTier.run(tier, workspaceId),
    setThroughput: (workspaceId: string, mps: number) => setThroughput.run(mps, workspaceId),
  };
}
