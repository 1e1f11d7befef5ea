import { create } from 'zustand';

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
  'settings/keys',
  'settings/channel',
] as const;
export type Route = (typeof ROUTES)[number];

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
