/**
 * The links `<img>`, `<audio>` and `<video>` load media from (README "Serving files"): the desktop
 * window's session is a header those elements cannot send, so each file is read through a signed
 * link, asked for once per media id and kept until it is about to expire.
 */
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { api, apiBaseUrl } from '../api/client.ts';
import { createLinkCache } from './media-link-cache.ts';
import { registerScopedStore } from './scope.ts';

const listeners = new Map<string, Set<() => void>>();

const cache = createLinkCache({
  fetch: (id) => api.media.link(id),
  onChange: (id) => listeners.get(id)?.forEach((listener) => listener()),
});

// Another workspace or environment: its links are not this one's.
registerScopedStore(() => {
  cache.clear();
  for (const ids of listeners.values()) ids.forEach((listener) => listener());
});

function subscribeTo(id: string | null) {
  return (listener: () => void) => {
    if (id === null) return () => {};
    let set = listeners.get(id);
    if (!set) listeners.set(id, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) listeners.delete(id);
    };
  };
}

/** An absolute URL for a link path the core gave (it is relative to the API's base). */
export const mediaUrl = (path: string): string => `${apiBaseUrl()}${path}`;

/** The same file as a download, whatever its type (`?download=1`). */
export const downloadUrl = (url: string): string =>
  `${url}${url.includes('?') ? '&' : '?'}download=1`;

export interface MediaLinkView {
  /** Where to load the file from, once the link is known. */
  url: string | null;
  /** Why no link could be had. */
  error: string | null;
  /** The link did not load (e.g. the core restarted since it was made): ask for a new one. */
  renew: () => void;
}

/** The link for a media id (null: none wanted, e.g. while the file is still being fetched). */
export function useMediaLink(id: string | null): MediaLinkView {
  const subscribe = useCallback((listener: () => void) => subscribeTo(id)(listener), [id]);
  const path = useSyncExternalStore(subscribe, () => (id ? (cache.peek(id)?.url ?? null) : null));
  const error = useSyncExternalStore(subscribe, () => (id ? cache.error(id) : null));
  useEffect(() => {
    if (id && path === null) cache.request(id);
  }, [id, path]);
  const renew = useCallback(() => {
    if (id) cache.renew(id);
  }, [id]);
  return { url: path === null ? null : mediaUrl(path), error, renew };
}
