import type { AuditEntry } from '../../../../shared/schemas/members.ts';

/** The action families the filter offers (`action=member.` matches every `member.*`). */
export const ACTION_FAMILIES: readonly { value: string; label: string }[] = [
  { value: 'session.', label: 'Sign-ins and sessions' },
  { value: 'member.', label: 'Members and invites' },
  { value: 'api_key.', label: 'API keys' },
  { value: 'wallet.', label: 'Wallet' },
  { value: 'prices.', label: 'Prices' },
  { value: 'settings.', label: 'Settings' },
  { value: 'campaign.', label: 'Campaigns' },
  { value: 'email_campaign.', label: 'Email campaigns' },
  { value: 'workflow.', label: 'Workflows' },
  { value: 'export.', label: 'Exports' },
];

const ACTIONS: Readonly<Record<string, string>> = {
  'session.sign_in': 'Signed in',
  'session.sign_in_failed': 'Sign-in refused',
  'session.sign_out': 'Signed out',
  'session.revoked': 'Ended a session',
  'session.link_used': 'Signed in with the one-click link',
  'member.invited': 'Invited a teammate',
  'member.invite_revoked': 'Revoked an invite',
  'member.joined': 'Joined the workspace',
  'member.updated': 'Changed a member',
  'member.deactivated': 'Deactivated a member',
  'member.reactivated': 'Reactivated a member',
  'member.password_changed': 'Changed their password',
  'api_key.created': 'Created an API key',
  'api_key.revoked': 'Revoked an API key',
  'wallet.topped_up': 'Topped up the wallet',
  'prices.updated': 'Changed the prices',
  'settings.updated': 'Changed settings',
  'export.created': 'Exported data',
};

/**
 * An action in words: the known ones as a sentence, others from their parts
 * (`workflow.activated` → "Activated workflow", `template.deleted` → "Deleted template").
 */
export function actionWords(action: string): string {
  const known = ACTIONS[action];
  if (known) return known;
  const dot = action.lastIndexOf('.');
  if (dot <= 0) return action;
  const what = action.slice(0, dot).replace(/[._]/g, ' ');
  const verb = action.slice(dot + 1).replace(/_/g, ' ');
  return `${verb.charAt(0).toUpperCase()}${verb.slice(1)} ${what}`;
}

/** Who did it, in words: a member's name, a key, the command line, Parley itself. */
export function actorWords(
  actor: AuditEntry['actor'],
  keyNames: ReadonlyMap<string, string> = new Map(),
): string {
  switch (actor.kind) {
    case 'member':
      return actor.name ?? 'A former member';
    case 'api_key': {
      const name = actor.id ? keyNames.get(actor.id) : undefined;
      if (name) return `API key ${name}`;
      return actor.name ? `API key ${actor.name}…` : 'An API key';
    }
    case 'cli':
      return 'Command line';
    case 'system':
      return 'Parley';
    case 'anonymous':
      return actor.name ? `Someone trying ${actor.name}` : 'Someone not signed in';
  }
}

/** What it was done to, in words; an API key by its name where `keyNames` knows it. */
export function targetWords(
  target: AuditEntry['target'],
  keyNames: ReadonlyMap<string, string> = new Map(),
): string {
  if (!target) return '—';
  const keyName = target.type === 'api_key' && target.id ? keyNames.get(target.id) : undefined;
  if (keyName) return `API key ${keyName}`;
  const type = target.type.replace(/_/g, ' ');
  return target.label ? `${target.label} (${type})` : target.id ? `${type} ${target.id}` : type;
}
