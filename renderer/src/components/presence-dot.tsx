import type { ReactNode } from 'react';
import type { PresenceStatus } from '../../../shared/schemas/index.ts';
import { selectPresence, usePresence } from '../stores/presence.ts';

/** What each presence means, as words (the dot's colour and shape say it to the eye). */
export const PRESENCE_LABELS: Readonly<Record<PresenceStatus, string>> = {
  online: 'Online',
  away: 'Away',
  offline: 'Offline',
};

/** A member's presence as the live store has it (offline when unknown). */
export function useMemberPresence(memberId: string | null | undefined): PresenceStatus {
  return usePresence(selectPresence(memberId));
}

interface PresenceDotProps {
  /** Whose presence: read from the presence store, unless `status` is given. */
  memberId?: string | null;
  status?: PresenceStatus;
  /** Words for screen readers too (default); false where the text is shown beside it. */
  spoken?: boolean;
}

/**
 * Online (green, filled), away (amber, ringed) or offline (grey, hollow): the shape differs as
 * well as the colour, and the status is in words for screen readers and on hover.
 */
export function PresenceDot({ memberId, status, spoken = true }: PresenceDotProps) {
  const live = useMemberPresence(memberId);
  const shown = status ?? live;
  return (
    <span
      className={`presence-dot presence-${shown}`}
      title={PRESENCE_LABELS[shown]}
      data-testid="presence-dot"
      data-status={shown}
      aria-hidden={spoken ? undefined : true}
    >
      {spoken ? <span className="visually-hidden">{PRESENCE_LABELS[shown]}</span> : null}
    </span>
  );
}

/** The status in words for screen readers, after a name the dot sits beside (", away"). */
export function PresenceWords({ memberId }: { memberId: string }) {
  const status = useMemberPresence(memberId);
  return <span className="visually-hidden">, {PRESENCE_LABELS[status].toLowerCase()}</span>;
}

/**
 * An avatar with the member's presence dot on its corner. The dot is drawn only: put
 * `PresenceWords` after the name it stands beside, so a screen reader hears "Ana López, away".
 */
export function WithPresence({
  memberId,
  status,
  children,
}: {
  memberId: string;
  status?: PresenceStatus;
  children: ReactNode;
}) {
  return (
    <span className="with-presence">
      {children}
      <PresenceDot memberId={memberId} spoken={false} {...(status ? { status } : {})} />
    </span>
  );
}
