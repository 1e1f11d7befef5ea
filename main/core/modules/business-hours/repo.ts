import type { Database as Db } from 'better-sqlite3';

export function businessHoursRepo(db: Db) {
  const get = db.prepare('SELECT hours FROM business_hours WHERE workspace_id = ?').pluck();
  const set = db.prepare(
    `INSERT INTO business_hours (workspace_id, hours, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (workspace_id) DO UPDATE SET hours = excluded.hours, updated_at = excluded.updated_at`,
  );
  return {
    get: (workspaceId: string) => get.get(workspaceId) as string | undefined,
    set: (workspaceId: string, hours: string, at: number) => set.run(workspaceId, hours, at),
  };
}
