import { create } from 'zustand';
import type { CreatedInvite, Invite, Member } from '../../../shared/schemas/members.ts';
import { api, errorMessage, type InviteBody, type UpdateMemberBody } from '../api/client.ts';
import { useAgents } from './agents.ts';
import { createRequestGuard, registerScopedStore, type LoadStatus } from './scope.ts';

/** The workspace's members and the invites not yet accepted (Settings → Members). */
interface MembersState {
  members: Member[];
  invites: Invite[];
  status: LoadStatus;
  error: string | null;
  load: () => Promise<void>;
  /** Role, extra rights, name, or active (deactivate / reactivate). */
  update: (id: string, body: UpdateMemberBody) => Promise<Member>;
  /** Resolves with the link to hand over; only the invite itself is kept here. */
  invite: (body: InviteBody) => Promise<CreatedInvite>;
  revokeInvite: (id: string) => Promise<void>;
  reset: () => void;
}

export const useMembers = create<MembersState>()((set) => {
  const guard = createRequestGuard();
  // The assignee pickers show the same people: a change here is a change there.
  const refreshAssignees = (): void => {
    if (useAgents.getState().status === 'ready') void useAgents.getState().load();
  };

  return {
    members: [],
    invites: [],
    status: 'idle',
    error: null,

    load: async () => {
      const isCurrent = guard.restart();
      set({ status: 'loading', error: null });
      try {
        const [members, invites] = await Promise.all([api.members.list(), api.members.invites()]);
        if (isCurrent()) set({ members: members.data, invites: invites.data, status: 'ready' });
      } catch (e) {
        if (isCurrent()) set({ status: 'error', error: errorMessage(e) });
      }
    },

    update: async (id, body) => {
      const member = await api.members.patch(id, body);
      set((s) => ({ members: s.members.map((m) => (m.id === member.id ? member : m)) }));
      refreshAssignees();
      return member;
    },

    invite: async (body) => {
      const created = await api.members.invite(body);
      set((s) => ({
        invites: [created.invite, ...s.invites.filter((i) => i.id !== created.invite.id)],
      }));
      return created;
    },

    revokeInvite: async (id) => {
      await api.members.revokeInvite(id);
      set((s) => ({ invites: s.invites.filter((i) => i.id !== id) }));
    },

    reset: () => {
      guard.invalidate();
      set({ members: [], invites: [], status: 'idle', error: null });
    },
  };
});

registerScopedStore(() => useMembers.getState().reset());
