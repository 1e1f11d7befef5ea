import type { EphemeralPayloads } from '../../../../shared/schemas/events.ts';
import type { Hub } from '../../events/hub.ts';
import type { Scope } from '../../runtime.ts';

type Notification = EphemeralPayloads['notification'];

interface Pending {
  scope: Scope;
  memberId: string;
  data: Notification;
  holds: () => boolean;
}

/**
 * A member's notifications (design.md §6: work assigned to them, a note that mentions them): an
 * ephemeral `notification` event to that member's streams only. What causes one happens inside
 * a transaction (often nested in a caller's), so it is sent on the next turn, once that has
 * committed or rolled back, and only if `holds()` still says it happened (the conversation is
 * still theirs, the note exists). Nobody notifies themselves.
 */
export function notifications(d: { hub: Pick<Hub, 'publish'>; isOpen: () => boolean }) {
  let queue: Pending[] = [];

  function flush() {
    const due = queue;
    queue = [];
    if (!d.isOpen()) return;
    for (const p of due) {
      if (p.holds()) d.hub.publish(p.scope, 'notification', p.data, { audience: [p.memberId] });
    }
  }

  return {
    later(scope: Scope, memberId: string, data: Notification, holds: () => boolean): void {
      if (data.by === memberId) return;
      if (queue.length === 0) setImmediate(flush);
      queue.push({ scope, memberId, data, holds });
    },
  };
}
export type Notifications = ReturnType<typeof notifications>;
