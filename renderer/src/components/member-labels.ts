import type { MemberRole } from '../../../shared/permissions.ts';
import type { Member } from '../../../shared/schemas/members.ts';

export const ROLE_LABELS: Readonly<Record<MemberRole, string>> = {
  owner: 'Owner',
  admin: 'Admin',
  agent: 'Agent',
};

/** Where a member stands: able to sign in, invited or added without a password, or switched off. */
export function memberStatus(member: Pick<Member, 'role' | 'active' | 'canSignIn'>): {
  label: string;
  className: string;
} {
  if (!member.active) return { label: 'Deactivated', className: 'status status-revoked' };
  // The owner signs in at the desk (the app, or the one-click link) until they set a password.
  if (member.role === 'owner' && !member.canSignIn) {
    return { label: 'Active, no password', className: 'status status-active' };
  }
  if (!member.canSignIn) return { label: 'No sign-in yet', className: 'status status-pending' };
  return { label: 'Active', className: 'status status-active' };
}
