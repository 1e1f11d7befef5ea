/** What the `parley` commands share: options, their context, errors of use, tables, the CLI actor. */
import os from 'node:os';
import type { Environment } from '../../shared/schemas/common.ts';
import { environmentSchema } from '../../shared/schemas/common.ts';
import type { Store } from '../core/core.ts';
import type { AuditActor } from '../core/modules/audit/service.ts';
import type { MemberContext } from '../core/modules/members/service.ts';

/** A mistake in how the command was called: exit code 2, "see parley --help". */
export class UsageError extends Error {}

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  isTTY: boolean;
}

export const OPTIONS = {
  'data-dir': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'v', default: false },
  port: { type: 'string' },
  host: { type: 'string' },
  env: { type: 'string' },
  name: { type: 'string' },
  workspace: { type: 'string' },
  amount: { type: 'string' },
  description: { type: 'string' },
  status: { type: 'string' },
  at: { type: 'string' },
  wait: { type: 'boolean', default: false },
  team: { type: 'boolean', default: false },
  announce: { type: 'boolean', default: false },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  role: { type: 'string' },
  rights: { type: 'string' },
  label: { type: 'string' },
  group: { type: 'string' },
  q: { type: 'string' },
  out: { type: 'string' },
} as const;

export type Values = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string;
};

export interface Ctx {
  values: Values;
  dataDir: string;
  positional: string[];
  open: () => Store;
  print: (human: string, data: unknown) => void;
  io: Io;
  json: boolean;
}

export type Command = (ctx: Ctx) => void | number | Promise<void | number>;

export function table(rows: Record<string, string>[]): string {
  if (rows.length === 0) return '(none)';
  const cols = Object.keys(rows[0]!);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(width[i]!))
      .join('  ')
      .trimEnd();
  return [
    line(cols.map((c) => c.toUpperCase())),
    ...rows.map((r) => line(cols.map((c) => r[c]!))),
  ].join('\n');
}

/** `--env test|live`, test when left out. */
export function envOrUsage(value: string | undefined): Environment {
  const env = environmentSchema.safeParse(value ?? 'test');
  if (!env.success) throw new UsageError('--env must be test or live');
  return env.data;
}

export const need = (v: string | undefined, what: string): string => {
  if (!v) throw new UsageError(`missing ${what}`);
  return v;
};

/** Who the command line is in the audit trail: `cli`, with the OS user who ran it. */
export const cliActor = (): AuditActor => ({
  kind: 'cli',
  id: 'cli',
  name: `parley (${os.userInfo().username})`,
});

/** The command line acting on a workspace's members, as a route would with its principal. */
export const cliMemberContext = (workspaceId: string): MemberContext => ({
  workspaceId,
  actor: cliActor(),
  memberId: null,
  sessionId: null,
  address: null,
});

/** What the command line changes is in the audit trail too, by the actor `cli`. */
export function cliAudit(
  services: Store['services'],
  workspaceId: string,
  action: string,
  target: { type: string; id: string | null },
  details: Record<string, unknown> = {},
): void {
  services.audit.append({
    workspaceId,
    actor: cliActor(),
    action,
    target,
    address: null,
    details,
  });
}
