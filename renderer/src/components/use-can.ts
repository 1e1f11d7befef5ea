import { can, refusal, RIGHT_ENVIRONMENT, type Right } from '../../../shared/permissions.ts';
import type { Me } from '../../../shared/schemas/index.ts';
import { ROUTE_RIGHTS, type Route } from '../stores/route.ts';
import { selectRights, useSession } from '../stores/session.ts';

/**
 * Whether the signed-in member holds a right here (README "Security": one matrix, read by the
 * core and by the UI). `me.rights` is the core's answer, grants and environment included.
 */
export function useCan(right: Right): boolean {
  return useSession((s) => selectRights(s).includes(right));
}

/**
 * Why the signed-in member may not use what needs `right`, in the words the core's 403 would
 * use (shared `refusal`), or null when they may.
 */
export function useRefusal(right: Right): string | null {
  return useSession((s) => {
    const me = s.me;
    if (!me || me.rights.includes(right)) return null;
    return (
      refusal(me.role, right, me.environment, me.grants) ??
      'Your role may not do this: ask an admin of the workspace.'
    );
  });
}

/**
 * Whether a member may open a screen: they hold its right here, or it is a right of one mode
 * only (the live channel's) that their role holds, and the screen says so in the other mode.
 */
function canOpen(me: Me | null, route: Route): boolean {
  if (!me) return false;
  const right = ROUTE_RIGHTS[route];
  if (me.rights.includes(right)) return true;
  return RIGHT_ENVIRONMENT[right] !== undefined && can(me.role, right, me.grants);
}

export function useCanOpen(route: Route): boolean {
  return useSession((s) => canOpen(s.me, route));
}

/** Whether any of these screens may be opened (a sidebar group shows its heading or not). */
export function useCanOpenAny(routes: readonly Route[]): boolean {
  return useSession((s) => routes.some((route) => canOpen(s.me, route)));
}
