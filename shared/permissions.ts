/**
 * Who may do what: one matrix, read by the core's auth hook (every API route declares the right
 * it needs) and by the UI (to hide or disable what the caller may not use). A right is allowed
 * to a role or not; some rights also hold in one environment only (the simulator is test mode's,
 * the WhatsApp channel live mode's).
 *
 * Roles today: `owner`, the desk's own session (the desktop window, or the browser signed in
 * with the link `parley serve` prints), and `api_key`, a script's key. Members with the `admin`
 * and `agent` roles join the matrix as rows of their own.
 */
import type { Environment } from './schemas/common.ts';

export const ROLES = ['owner', 'api_key'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The rights routes declare, grouped as the desk's areas are: what an agent works with (inbox,
 * contacts, sends), what the business builds (templates, lists, campaigns, automation), and
 * what only the desk's administrator touches (keys, money, settings that aim the core at a host).
 */
export const RIGHTS = [
  /** Conversations, their messages, replies and notes, canned replies, agents. */
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
  /** Workspaces and their settings (private targets, low-balance threshold). */
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
  /** The simulated channel's controls. */
  'simulator',
] as const;
export type Right = (typeof RIGHTS)[number];

/** Routes that take no credential: their own proof (a token, a signature) or nothing to guard. */
export const PUBLIC = 'public';
export type RouteRight = Right | typeof PUBLIC;

const ALL: readonly Role[] = ROLES;
const OWNER: readonly Role[] = ['owner'];

/** Right → the roles that hold it. */
export const PERMISSIONS: Readonly<Record<Right, readonly Role[]>> = {
  inbox: ALL,
  contacts: ALL,
  send: ALL,
  events: ALL,
  'templates.read': ALL,
  'templates.write': ALL,
  'lists.read': ALL,
  'lists.write': ALL,
  'campaigns.read': ALL,
  'campaigns.write': ALL,
  'automation.read': ALL,
  'automation.write': ALL,
  webhooks: ALL,
  'wallet.read': ALL,
  'wallet.manage': OWNER,
  keys: OWNER,
  'workspace.read': ALL,
  'workspace.manage': OWNER,
  'channel.read': ALL,
  'channel.manage': OWNER,
  'email_settings.read': ALL,
  'email_settings.manage': OWNER,
  simulator: ALL,
};

/** Rights that hold in one environment only, whoever asks. */
export const RIGHT_ENVIRONMENT: Readonly<Partial<Record<Right, Environment>>> = {
  simulator: 'test',
  'channel.read': 'live',
  'channel.manage': 'live',
};

export const can = (role: Role, right: Right): boolean => PERMISSIONS[right].includes(role);

/** Why a right was refused, in words the caller can act on (the 403's message). */
export function refusal(role: Role, right: Right, environment: Environment): string | null {
  if (!can(role, right)) {
    return 'This action is only available in the Parley app (Settings), not with an API key.';
  }
  const only = RIGHT_ENVIRONMENT[right];
  if (only && only !== environment) {
    return only === 'test'
      ? 'This route works with test keys only.'
      : 'The channel is set for live keys: test keys always use the simulated channel.';
  }
  return null;
}

/** Every right a role holds in an environment: what a UI may offer. */
export const rightsOf = (role: Role, environment: Environment): Right[] =>
  RIGHTS.filter((right) => refusal(role, right, environment) === null);
