/**
 * The audit trail (design.md §6 "Working together", README "Security"): who did what to what,
 * from where and when, appended in the same transaction as the change where the core owns one,
 * kept 400 days, read by admins (`GET /audit`, the Audit screen) and exported as CSV.
 */
import type { Database as Db } from 'better-sqlite3';
import type { AuditEntry } from '../../../../shared/schemas/members.ts';
import { ApiError } from '../../../../shared/errors.ts';
import { decodeNumericCursor, encodeCursor } from '../../http/pagination.ts';
import type { Clock } from '../../runtime.ts';
import { iso } from '../../runtime.ts';

export const AUDIT_RETENTION_MS = 400 * 24 * 3600 * 1000;
/** A row not tied to one workspace (a failed sign-in for an address no member has). */
export const DESK_WIDE = '';

export interface AuditActor {
  kind: AuditEntry['actor']['kind'];
  id: string | null;
  name: string | null;
}

export interface AuditRecord {
  workspaceId: string;
  actor: AuditActor;
  action: string;
  target?: { type: string; id: string | null; label?: string | null } | null;
  address?: string | null;
  details?: Record<string, unknown>;
}

export interface AuditFilter {
  actor?: string | undefined;
  action?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

interface AuditRow {
  seq: number;
  workspace_id: string;
  actor_kind: AuditActor['kind'];
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_label: string | null;
  address: string | null;
  details: string;
  created_at: number;
}

const toEntry = (r: AuditRow): AuditEntry => ({
  id: `aud_${r.seq}`,
  actor: { kind: r.actor_kind, id: r.actor_id, name: r.actor_name },
  action: r.action,
  target: r.target_type ? { type: r.target_type, id: r.target_id, label: r.target_label } : null,
  address: r.address,
  details: JSON.parse(r.details) as Record<string, unknown>,
  createdAt: iso(r.created_at),
});

export const AUDIT_CSV_HEADER = [
  'time',
  'actor_kind',
  'actor_id',
  'actor_name',
  'action',
  'target_type',
  'target_id',
  'target_label',
  'address',
  'details',
] as const;

const csvRow = (r: AuditRow): unknown[] => [
  iso(r.created_at),
  r.actor_kind,
  r.actor_id,
  r.actor_name,
  r.action,
  r.target_type,
  r.target_id,
  r.target_label,
  r.address,
  r.details === '{}' ? '' : r.details,
];

export function auditService(db: Db, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO audit (workspace_id, actor_kind, actor_id, actor_name, action, target_type,
       target_id, target_label, address, details, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const prune = db.prepare(
    'DELETE FROM audit WHERE seq IN (SELECT seq FROM audit WHERE created_at < ? LIMIT ?)',
  );
  const cache = new Map<string, ReturnType<Db['prepare']>>();

  /** One statement per filter shape, prepared once. */
  function query(filter: AuditFilter, limit: number, before: number | null) {
    const where = ['workspace_id IN (?, ?)'];
    const args: unknown[] = [];
    if (filter.actor) where.push('actor_id = ?');
    if (filter.action?.endsWith('.')) where.push('substr(action, 1, length(?)) = ?');
    else if (filter.action) where.push('action = ?');
    if (filter.since) where.push('created_at >= ?');
    if (filter.until) where.push('created_at < ?');
    if (before !== null) where.push('seq < ?');
    const sql = `SELECT * FROM audit WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`;
    let stmt = cache.get(sql);
    if (!stmt) cache.set(sql, (stmt = db.prepare(sql)));
    const prepared = stmt;
    if (filter.actor) args.push(filter.actor);
    if (filter.action?.endsWith('.')) args.push(filter.action, filter.action);
    else if (filter.action) args.push(filter.action);
    if (filter.since) args.push(Date.parse(filter.since));
    if (filter.until) args.push(Date.parse(filter.until));
    if (before !== null) args.push(before);
    return (workspaceId: string) =>
      prepared.all([workspaceId, DESK_WIDE, ...args, limit]) as AuditRow[];
  }

  const service = {
    append(r: AuditRecord): void {
      insert.run(
        r.workspaceId,
        r.actor.kind,
        r.actor.id,
        r.actor.name,
        r.action,
        r.target?.type ?? null,
        r.target?.id ?? null,
        r.target?.label ?? null,
        r.address ?? null,
        JSON.stringify(r.details ?? {}),
        clock.now(),
      );
    },
    list(workspaceId: string, filter: AuditFilter, limit: number, cursor?: string) {
      const before = cursor ? decodeNumericCursor(cursor) : null;
      const rows = query(filter, limit + 1, before)(workspaceId);
      const more = rows.length > limit;
      const data = rows.slice(0, limit);
      return {
        data: data.map(toEntry),
        nextCursor: more ? encodeCursor(data[data.length - 1]!.seq) : null,
      };
    },
    /** The CSV export's batches (csv-export.ts), newest first. */
    exportBatch(workspaceId: string, filter: AuditFilter, after: number | null) {
      const rows = query(filter, 1000, after)(workspaceId);
      return { rows: rows.map(csvRow), last: rows.length === 1000 ? rows[999]!.seq : null };
    },
    /** Retention's sweep (jobs/retention.ts): entries older than 400 days, a batch at a time. */
    prune: (limit: number): number => prune.run(clock.now() - AUDIT_RETENTION_MS, limit).changes,
  };
  return service;
}
export type AuditService = ReturnType<typeof auditService>;

/** A filter's dates as the API takes them; an inverted range is a 400. */
export function checkAuditFilter(filter: AuditFilter): AuditFilter {
  if (filter.since && filter.until && Date.parse(filter.since) > Date.parse(filter.until)) {
    throw new ApiError('validation_error', 'since must be before until', { param: 'since' });
  }
  return filter;
}
