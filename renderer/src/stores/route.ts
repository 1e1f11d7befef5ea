import { create } from 'zustand';

export const ROUTES = [
  'inbox',
  'contacts',
  'templates',
  'canned-replies',
  'wallet',
  'playground',
  'settings/keys',
] as const;
export type Route = (typeof ROUTES)[number];

export const DEFAULT_ROUTE: Route = 'inbox';

const isRoute = (value: string): value is Route => (ROUTES as readonly string[]).includes(value);

function routeFromHash(hash: string): Route | null {
  const path = hash.replace(/^#\/?/, '').replace(/\/+$/, '');
  return isRoute(path) ? path : null;
}

interface RouteState {
  route: Route;
  navigate: (route: Route) => void;
}

export const useRoute = create<RouteState>()((set) => ({
  route: routeFromHash(location.hash) ?? DEFAULT_ROUTE,
  navigate: (route) => {
    location.hash = `#/${route}`;
    set({ route });
  },
}));

export const hrefFor = (route: Route): string => `#/${route}`;

/** Follows the address bar; an unknown hash is replaced by the default screen. */
export function startHashRouting(): () => void {
  const sync = (): void => {
    const route = routeFromHash(location.hash);
    if (route) {
      useRoute.setState({ route });
    } else {
      history.replaceState(null, '', hrefFor(DEFAULT_ROUTE));
      useRoute.setState({ route: DEFAULT_ROUTE });
    }
  };
  sync();
  window.addEventListener('hashchange', sync);
  return () => window.removeEventListener('hashchange', sync);
}
