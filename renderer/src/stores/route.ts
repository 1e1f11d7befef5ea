import { create } from 'zustand';
import type { Right } from '../../../shared/permissions.ts';

export const ROUTES = [
  'inbox',
  'contacts',
  'templates',
  'campaigns',
  'email',
  'canned-replies',
  'interactive-lists',
  'workflows',
  'wallet',
  'playground',
  'webhooks',
  'settings/workspace',
  'settings/keys',
  'settings/channel',
  'settings/simulator',
  'settings/members',
  'settings/team',
  'settings/audit',
  'settings/account',
] as const;
export type Route = (typeof ROUTES)[number];

/**
 * The right each screen needs to open (README "Security"): the sidebar hides the others, and one
 * opened by its address says which right is missing instead of failing request by request.
 * Screens of what the business builds open read-only; their writing controls ask for `*.write`.
 */
export const ROUTE_RIGHTS: Readonly<Record<Route, Right>> = {
  inbox: 'inbox',
  contacts: 'contacts',
  templates: 'templates.read',
  campaigns: 'campaigns.read',
  email: 'campaigns.read',
  'canned-replies': 'inbox',
  'interactive-lists': 'lists.read',
  workflows: 'automation.read',
  wallet: 'wallet.read',
  // The playground calls the API with a key: it is for those who may hold keys.
  playground: 'keys',
  webhooks: 'webhooks',
  // Admins only: agents do not read the workspace's settings (an API key may, but has no UI).
  'settings/workspace': 'workspace.read',
  'settings/keys': 'keys',
  'settings/channel': 'channel.read',
  // Test mode's; in live mode the screen says where its settings are changed.
  'settings/simulator': 'simulator',
  'settings/members': 'members',
  // The team view and reassigning are the members right's; sharing the desk asks for `team`.
  'settings/team': 'members',
  'settings/audit': 'audit',
  'settings/account': 'sessions',
};

/** Each screen's name, as the sidebar shows it. */
export const SCREEN_NAMES: Readonly<Record<Route, string>> = {
  inbox: 'Inbox',
  contacts: 'Contacts',
  templates: 'Templates',
  campaigns: 'Campaigns',
  email: 'Email',
  'canned-replies': 'Canned replies',
  'interactive-lists': 'Interactive lists',
  workflows: 'Workflows',
  wallet: 'Wallet',
  playground: 'API playground',
  webhooks: 'Webhooks',
  'settings/workspace': 'Workspace',
  'settings/keys': 'API keys',
  'settings/channel': 'Channel',
  'settings/simulator': 'Simulator',
  'settings/members': 'Members',
  'settings/team': 'Team',
  'settings/audit': 'Audit',
  'settings/account': 'Your account',
};

export const DEFAULT_ROUTE: Route = 'inbox';

/**
 * Screens with pages of their own below them: `#/campaigns/<id>` is the screen `campaigns` with
 * the sub-path `<id>`, which the screen reads (a detail, an editor). Other screens have none.
 */
const NESTED_ROUTES: ReadonlySet<Route> = new Set<Route>([
  'campaigns',
  'email',
  'interactive-lists',
  'workflows',
  'webhooks',
]);

const isRoute = (value: string): value is Route => (ROUTES as readonly string[]).includes(value);

interface Location {
  route: Route;
  /** What follows the screen's path (`<id>`, `<id>/edit`, `new`), or null on the screen itself. */
  subPath: string | null;
}

function locationFromHash(hash: string): Location | null {
  const path = hash.replace(/^#\/?/, '').replace(/\/+$/, '');
  if (isRoute(path)) return { route: path, subPath: null };
  const slash = path.indexOf('/');
  const head = slash < 0 ? path : path.slice(0, slash);
  if (slash > 0 && isRoute(head) && NESTED_ROUTES.has(head)) {
    let subPath: string;
    try {
      subPath = decodeURIComponent(path.slice(slash + 1));
    } catch {
      return null;
    }
    return subPath ? { route: head, subPath } : { route: head, subPath: null };
  }
  return null;
}

interface RouteState extends Location {
  navigate: (route: Route, subPath?: string | null) => void;
}

const initial = locationFromHash(location.hash) ?? { route: DEFAULT_ROUTE, subPath: null };

export const useRoute = create<RouteState>()((set) => ({
  ...initial,
  navigate: (route, subPath = null) => {
    location.hash = hrefFor(route, subPath);
    set({ route, subPath });
  },
}));

export const hrefFor = (route: Route, subPath: string | null = null): string =>
  subPath ? `#/${route}/${subPath.split('/').map(encodeURIComponent).join('/')}` : `#/${route}`;

/** Follows the address bar; an unknown hash is replaced by the default screen. */
export function startHashRouting(): () => void {
  const sync = (): void => {
    const found = locationFromHash(location.hash);
    if (found) {
      useRoute.setState(found);
    } else {
      history.replaceState(null, '', hrefFor(DEFAULT_ROUTE));
      useRoute.setState({ route: DEFAULT_ROUTE, subPath: null });
    }
  };
  sync();
  window.addEventListener('hashchange', sync);
  return () => window.removeEventListener('hashchange', sync);
}
