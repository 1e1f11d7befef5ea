/**
 * Who may do what: one matrix, read by the core's auth hook (every API route declares the right
 * it needs) and by the UI (to hide or disable what the caller may not use). A right is allowed
 * to a role or not; an agent may hold extra rights an admin grants; some rights also hold in one
 * environment only (the simulator is test mode's, the WhatsApp channel live mode's).
 *
 * Roles (README "Security"): the workspace's members — `owner` (exactly one, every right; the
 * desktop's local session is the owner's), `admin`, `agent` — and `api_key`, a script's key,
 * which is not a member and never does what only a signed-in administrator does.
 */
import type { Environment } from './schemas/common.ts';

export const MEMBER_ROLES = ['owner', 'admin', 'agent'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];
/** The roles an invite or a change may give: there is one owner, made with the workspace. */
export const ASSIGNABLE_ROLES = ['admin', 'agent'] as const;
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];
export const ROLES = [...MEMBER_ROLES, 'api_key'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The rights routes declare, grouped as the desk's areas are: what an agent works with (inbox,
 * contacts, sends), what the business builds (templates, lists, campaigns, automation), and
 * what only the desk's administrators touch (members, keys, money, settings that aim the core at
 * a host, the audit trail).
 */
export const RIGHTS = [
  /** Who the caller is (`GET /api/me`) and the workspaces it sees. */
  'account',
  /** A member's own sign-in: their sessions, sign-out, password. */
  'sessions',
  /** Conversations, their messages, replies and notes, canned replies, the assignee list. */
  'inbox',
  /** Contacts, groups, imports. */
  'contacts',
  /** The send API: templates, texts and lists to a phone. */
  'send',
  /** The event stream. */
  'events',
  'templates.read',
  'templates.write',
  'lists.read',
  'lists.write',
  /** Messaging and email campaigns. */
  'campaigns.read',
  'campaigns.write',
  /** Workflows, their runs and business events. */
  'automation.read',
  'automation.write',
  /** Webhook endpoints and their delivery logs. */
  'webhooks',
  /** The balance, the ledger, the price table (reading). */
  'wallet.read',
  /** Top-ups and prices. */
  'wallet.manage',
  /** API keys. */
  'keys',
  /** Members, invites, roles, other members' sessions. */
  'members',
  /** The audit trail and its export. */
  'audit',
  /**
   * Taking the business's data out in bulk: contacts and campaign recipients as CSV (README
   * "Exports"). An agent reads contacts a page at a time but does not carry the list away.
   */
  'exports',
  /** Sharing the desk on the network (the TLS listener, its certificate, the mDNS announcement). */
  'team',
  /** Workspace settings (private targets, low-balance threshold): reading them. */
  'workspace.read',
  'workspace.manage',
  /** The live WhatsApp channel: its settings, number and rejected webhook items (reading). */
  'channel.read',
  /** Connecting the channel and checking it: the settings aim the core at a host. */
  'channel.manage',
  /** Email settings: reading them. */
  'email_settings.read',
  /** The SMTP server and its check: the settings aim the core at a host. */
  'email_settings.manage',
  /** The simulated channel's controls: a customer writing in, a review, reading its settings. */
  'simulator',
  /**
   * Changing the simulator's settings (`PUT /api/simulator/settings`): its tier and throughput
   * also pace a live workspace the simulated channel serves, and its approval wait holds live
   * templates, so it is an administrator's (README "Members and roles") — or a test key's, which
   * an admin made (the simulator's routes are a test key's, README "The simulator").
   */
  'simulator.manage',
] as const;
export type Right = (typeof RIGHTS)[number];

/**
 * Extra rights an admin may grant an agent (design.md §6): `campaigns` lets them build and send
 * campaigns (and the templates and lists they send), `automation` lets them build workflows.
 */
export const GRANTS = ['campaigns', 'automation'] as const;
export type Grant = (typeof GRANTS)[number];
export const GRANT_RIGHTS: Readonly<Record<Grant, readonly Right[]>> = {
  campaigns: ['campaigns.write', 'templates.write', 'lists.write'],
  automation: ['automation.write'],
};
export const GRANT_LABELS: Readonly<Record<Grant, string>> = {
  campaigns: 'Campaigns, templates and lists',
  automation: 'Workflows',
};

/** Routes that take no credential: their own proof (a token, a signature) or nothing to guard. */
export const PUBLIC = 'public';
export type RouteRight = Right | typeof PUBLIC;

const ALL: readonly Role[] = ROLES;
const MEMBERS: readonly Role[] = MEMBER_ROLES;
/** Admins and scripts: what the business builds and runs, out of an agent's reach. */
const BUILDERS: readonly Role[] = ['owner', 'admin', 'api_key'];
/** What only a signed-in administrator does, never a key. */
const ADMINS: readonly Role[] = ['owner', 'admin'];

/** Right → the roles that hold it. */
export const PERMISSIONS: Readonly<Record<Right, readonly Role[]>> = {
  account: ALL,
  sessions: MEMBERS,
  inbox: ALL,
  contacts: ALL,
  send: ALL,
  events: ALL,
  'templates.read': ALL,
  'templates.write': BUILDERS,
  'lists.read': ALL,
  'lists.write': BUILDERS,
  'campaigns.read': ALL,
  'campaigns.write': BUILDERS,
  'automation.read': ALL,
  'automation.write': BUILDERS,
  webhooks: BUILDERS,
  'wallet.read': BUILDERS,
  'wallet.manage': ADMINS,
  keys: ADMINS,
  members: ADMINS,
  audit: ADMINS,
  exports: BUILDERS,
  team: ADMINS,
  'workspace.read': BUILDERS,
  'workspace.manage': ADMINS,
  'channel.read': BUILDERS,
  'channel.manage': ADMINS,
  'email_settings.read': BUILDERS,
  'email_settings.manage': ADMINS,
  simulator: ALL,
  'simulator.manage': BUILDERS,
};

/** Rights that hold in one environment only, whoever asks. */
export const RIGHT_ENVIRONMENT: Readonly<Partial<Record<Right, Environment>>> = {
  simulator: 'test',
  'simulator.manage': 'test',
  'channel.read': 'live',
  'channel.manage': 'live',
};

/** True when the role holds the right by itself or through one of the member's grants. */
export const can = (role: Role, right: Right, grants: readonly Grant[] = []): boolean =>
  PERMISSIONS[right].includes(role) ||
  (role === 'agent' && grants.some((g) => GRANT_RIGHTS[g].includes(right)));

/** Why a right was refused, in words the caller can act on (the 403's message). */
export function refusal(
  role: Role,
  right: Right,
  environment: Environment,
  grants: readonly Grant[] = [],
): string | null {
  if (!can(role, right, grants)) {
    if (role === 'api_key') {
      return 'This action is only available to a signed-in administrator in the Parley app, not with an API key.';
    }
    if (right === 'sessions') return 'Only a signed-in member has sessions.';
    const grant = GRANTS.find((g) => GRANT_RIGHTS[g].includes(right));
    return grant
      ? `Your role (${role}) may not do this unless an admin grants you "${GRANT_LABELS[grant]}".`
      : `Your role (${role}) may not do this: ask an admin of the workspace.`;
  }
  const only = RIGHT_ENVIRONMENT[right];
  if (only && only !== environment) {
    return only === 'test'
      ? 'This route works with test keys only.'
      : 'The channel is set for live keys: test keys always use the simulated channel.';
  }
  return null;
}

/** Every right a caller holds in an environment: what a UI may offer. */
export const rightsOf = (
  role: Role,
  environment: Environment,
  grants: readonly Grant[] = [],
): Right[] => RIGHTS.filter((right) => refusal(role, right, environment, grants) === null);

/** What a role is for, in a sentence (the Members screen and the invite form). */
export const ROLE_SUMMARY: Readonly<Record<MemberRole, string>> = {
  owner: 'Every right; the desk’s owner cannot be removed.',
  admin: 'Members, API keys, wallet, settings and webhooks, and everything an agent does.',
  agent:
    'The inbox, contacts and canned replies; templates, lists, campaigns and workflows read-only unless granted.',
};
