import { RIGHTS, type Right } from '../../../shared/permissions.ts';
import { useSession } from '../stores/session.ts';
import { useRefusal } from './use-can.ts';

/** The id of the hidden text that says why a control needing `right` is disabled. */
const noteId = (right: Right): string => `needs-right-${right.replace('.', '-')}`;

/** What a control needing a right carries when the member lacks it. */
export interface RightGate {
  disabled: boolean;
  /** Only when refused: a control's own title stays otherwise. */
  title?: string;
  'aria-describedby'?: string;
}

/**
 * For a control (create, edit, delete, launch) that needs `right`: whether the member may use it,
 * why not in the words of the core's 403 (shared `refusal`), and the props that disable it and
 * describe it by that reason — spread them on the button (before its own `disabled` and `title`,
 * which then combine them), or read `refusal` for a menu item.
 */
export function useRightGate(right: Right): { refusal: string | null; gate: RightGate } {
  const refusal = useRefusal(right);
  return {
    refusal,
    gate: refusal
      ? { disabled: true, title: refusal, 'aria-describedby': noteId(right) }
      : { disabled: false },
  };
}

/**
 * The reasons controls are disabled, once per page and out of sight, for `aria-describedby`: one
 * element for each right the signed-in member lacks.
 */
export function RightNotes() {
  const me = useSession((s) => s.me);
  if (!me) return null;
  return (
    <div className="visually-hidden">
      {RIGHTS.filter((right) => !me.rights.includes(right)).map((right) => (
        <RightNote key={right} right={right} />
      ))}
    </div>
  );
}

function RightNote({ right }: { right: Right }) {
  const refusal = useRefusal(right);
  return <span id={noteId(right)}>{refusal}</span>;
}

/** Above a screen the member may read but not change: says so, and why, once. */
export function ReadOnlyNote({ right, what }: { right: Right; what: string }) {
  const refusal = useRefusal(right);
  if (!refusal) return null;
  return (
    <div className="banner banner-info" role="note" data-testid="read-only-note">
      <span className="banner-text">
        You can read {what} here but not change them. {refusal}
      </span>
    </div>
  );
}
