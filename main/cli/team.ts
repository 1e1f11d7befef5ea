/**
 * The team desk on the command line (design.md §6): `parley members …` (list, invite,
 * deactivate — the members service, acting as `cli`), `parley team status`, and what
 * `parley serve --team` prints.
 */
import { GRANTS } from '../../shared/permissions.ts';
import type { Grant } from '../../shared/permissions.ts';
import { inviteBody } from '../../shared/schemas/members.ts';
import type { TeamStatus } from '../../shared/schemas/team.ts';
import type { Store } from '../core/core.ts';
import { lastServeUrl, uiBaseUrl } from '../core/http/session.ts';
import type { ShareResult } from '../core/modules/team/service.ts';
import { readState, stateIsLive } from '../core/modules/team/service.ts';
import { readCertificate } from '../core/tls/certificate.ts';
import type { Command, Io } from './common.ts';
import { cliMemberContext, need, table, UsageError } from './common.ts';

/** "Online": an open session seen in the last 5 minutes. */
const ONLINE_MS = 5 * 60 * 1000;

/** The workspace a member id belongs to (member ids are unique on the desk). */
function workspaceOfMember(store: Store, id: string, asked: string | undefined): string {
  const { services } = store;
  const spaces = asked ? [services.workspaces.resolve(asked)] : services.workspaces.list();
  const ws = spaces.find((w) => services.members.get(w.id, id));
  if (!ws) throw new UsageError(`no member ${id}${asked ? ` in workspace ${asked}` : ''}`);
  return ws.id;
}

function rightsOrUsage(value: string | undefined): Grant[] | undefined {
  if (value === undefined) return undefined;
  const rights = value
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const unknown = rights.filter((r) => !(GRANTS as readonly string[]).includes(r));
  if (unknown.length > 0)
    throw new UsageError(
      `--rights takes ${GRANTS.join(', ')} (comma-separated), not ${unknown.join(', ')}`,
    );
  return rights as Grant[];
}

export const teamCommands: Record<string, Command> = {
  'members list': ({ values, open, print }) => {
    const { services } = open();
    const ws = services.workspaces.resolve(values.workspace);
    const list = services.members.list(ws.id);
    print(
      table(
        list.map((m) => ({
          id: m.id,
          name: m.name,
          email: m.email ?? '-',
          role: m.role,
          rights: m.rights.join(',') || '-',
          status: !m.active ? 'deactivated' : m.canSignIn ? 'active' : 'cannot sign in',
          'last seen': m.lastSeenAt ?? 'never',
        })),
      ),
      list,
    );
  },

  'members invite': ({ values, positional, dataDir, open, print, io, json }) => {
    const parsed = inviteBody.safeParse({
      email: need(positional[0], 'EMAIL'),
      name: need(values.name, '--name NAME'),
      role: need(values.role, '--role agent|admin'),
      rights: rightsOrUsage(values.rights),
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const flag = issue.path[0] === 'email' ? 'EMAIL' : `--${String(issue.path[0])}`;
      throw new UsageError(
        issue.path[0] === 'role' ? '--role must be agent or admin' : `${flag}: ${issue.message}`,
      );
    }
    if (parsed.data.role !== 'agent' && parsed.data.rights?.length) {
      throw new UsageError('--rights are for agents: an admin has them all');
    }
    const { services } = open();
    const ws = services.workspaces.resolve(values.workspace);
    // A shared desk's link points at its team address and pins its certificate; otherwise it
    // opens on this machine only.
    const state = readState(dataDir);
    const shared = state && stateIsLive(state) && state.addresses[0] && state.fingerprint;
    const created = shared
      ? services.members.invite(
          cliMemberContext(ws.id),
          parsed.data,
          state.addresses[0]!,
          state.fingerprint,
        )
      : services.members.invite(
          cliMemberContext(ws.id),
          parsed.data,
          uiBaseUrl(lastServeUrl(dataDir) ?? 'http://127.0.0.1:4780'),
        );
    if (!shared && !json) {
      io.err(
        'parley: this desk is not shared on the network, so the link opens on this machine only (parley serve --team shares it)',
      );
    }
    print(
      `${created.inviteUrl}\n\nInvited ${created.invite.email} as ${created.invite.role} to ${ws.name}: ` +
        `the link works once, until ${created.expiresAt}${created.emailed ? ' (also sent by email)' : ''}.`,
      created,
    );
  },

  'members deactivate': ({ values, positional, open, print }) => {
    const id = need(positional[0], 'member ID');
    const store = open();
    const workspaceId = workspaceOfMember(store, id, values.workspace);
    const m = store.services.members.update(cliMemberContext(workspaceId), id, { active: false });
    print(
      `deactivated ${m.name} (${m.id}): their sessions have ended; reactivate them in Settings → Members`,
      m,
    );
  },

  'team status': ({ dataDir, open, print }) => {
    const { services } = open();
    const state = readState(dataDir);
    const live = state !== null && stateIsLive(state);
    const cert = readCertificate(dataDir);
    const online = services.members.sessionsSeenSince(services.clock.now() - ONLINE_MS);
    const data = {
      sharing: live,
      pid: live ? state.pid : null,
      addresses: live ? state.addresses : [],
      port: live ? state.port : null,
      announce: live && state.announce,
      fingerprint: cert?.fingerprint ?? null,
      spki: cert?.spki ?? null,
      certificate: cert
        ? {
            notBefore: new Date(cert.notBefore).toISOString(),
            notAfter: new Date(cert.notAfter).toISOString(),
            names: cert.names,
          }
        : null,
      sessionsOnline: online,
    };
    const lines = [
      live
        ? `sharing: yes (parley serve, pid ${state.pid}${state.announce ? '; announced on the LAN' : ''})`
        : 'sharing: no — parley serve --team (or Settings → Team in the app) shares this desk',
      ...(live ? [`addresses: ${state.addresses.join('  ')}`] : []),
      cert
        ? `fingerprint: ${cert.fingerprint}\nspki: ${cert.spki}\ncertificate: valid until ${data.certificate!.notAfter}; names: ${cert.names.join(', ')}`
        : 'certificate: none yet (made when the desk is first shared)',
      `sessions online: ${online} (seen in the last 5 minutes)`,
    ];
    print(lines.join('\n'), data);
  },
};

/** What `parley serve --team` prints once the desk is shared (stdout), for people. */
export function describeSharing(
  result: ShareResult,
  io: Io,
  local: { url: string; signIn: string | null },
  bind: string,
): void {
  const s: TeamStatus = result.status;
  const shown = bind.includes(':') ? `[${bind}]` : bind;
  io.out(`listening on https://${shown}:${s.port} (the team desk: TLS only)`);
  for (const a of s.addresses) io.out(`  ${a}`);
  io.out(`fingerprint: ${s.fingerprint}`);
  io.out(`spki: ${s.spki}`);
  if (s.certificate) {
    io.out(
      `certificate: ${s.certificate.selfSigned ? 'self-signed' : 'given'}, valid until ${s.certificate.notAfter}`,
    );
  }
  if (result.renewed) {
    io.out(
      `certificate renewed: the fingerprint changed from ${result.renewed.from} to ${result.renewed.to}; joined desktops must paste a new invite`,
    );
  }
  io.out(`this machine: ${local.url}`);
  if (local.signIn) io.out(`sign in: ${local.signIn}`);
  io.err(
    'parley: invite teammates with parley members invite EMAIL --name NAME --role agent (the link pins this certificate)',
  );
}
