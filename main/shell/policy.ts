// The shell's decisions, kept free of electron imports so they are unit-tested on Node.

export interface ShellConfig {
  baseUrl: string;
  sessionToken: string;
}

/** Security settings of the window (README "Architecture": contextIsolation on, nodeIntegration off, sandboxed). */
export function webPreferences(preload: string) {
  return {
    preload,
    contextIsolation: true,
    nodeIntegration: false,
    sandbox: true,
    webSecurity: true,
    spellcheck: true,
  } as const;
}

/**
 * What the preload hands a page: the per-launch token only to this computer's desk. A joined team
 * desk's pages (another machine's server, signed in with its own cookie) get no token, so no
 * remote page can act as this computer's owner.
 */
export function configFor(pageUrl: string, baseUrl: string, sessionToken: string): ShellConfig {
  if (isInternalUrl(pageUrl, baseUrl)) return { baseUrl, sessionToken };
  try {
    return { baseUrl: new URL(pageUrl).origin, sessionToken: '' };
  } catch {
    return { baseUrl: '', sessionToken: '' };
  }
}

/** The window may only show the core's own pages; anything else opens in the user's browser. */
export function isInternalUrl(url: string, baseUrl: string): boolean {
  try {
    return new URL(url).origin === new URL(baseUrl).origin;
  } catch {
    return false;
  }
}

export function isExternalHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' || u.protocol === 'mailto:';
  } catch {
    return false;
  }
}

/** Where the unpackaged app finds an Electron-ABI build of better-sqlite3 (made by npm start). */
export function electronNativeBinding(buildDir: string, isPackaged: boolean): string | undefined {
  return isPackaged ? undefined : `${buildDir}/electron-native/better_sqlite3.node`;
}

export interface NotifyRequest {
  title: string;
  body: string;
  conversationId: string;
}

/**
 * Checks what the renderer asks the shell to show: plain strings of bounded length and an id
 * the window can open. Anything else is dropped.
 */
export function notificationFrom(input: unknown): NotifyRequest | null {
  if (!input || typeof input !== 'object') return null;
  const { title, body, conversationId } = input as Record<string, unknown>;
  if (typeof title !== 'string' || typeof body !== 'string' || typeof conversationId !== 'string')
    return null;
  if (!/^conv_[A-Za-z0-9]{1,60}$/.test(conversationId)) return null;
  const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  return { title: clip(title.trim() || 'New message', 80), body: clip(body, 200), conversationId };
}

/** A dock/taskbar badge count from the renderer: a whole number, capped for display. */
export function badgeCount(input: unknown): number {
  return typeof input === 'number' && Number.isFinite(input) && input > 0
    ? Math.min(Math.floor(input), 9999)
    : 0;
}

/**
 * The question a page with unsaved changes asks before it is closed or left (its
 * `beforeunload`): Electron cancels silently unless the shell asks, so it asks this. The
 * answer's first button leaves.
 */
export const LEAVE_PAGE_QUESTION = {
  type: 'question',
  buttons: ['Leave', 'Stay'],
  defaultId: 1,
  cancelId: 1,
  title: 'Unsaved changes',
  message: 'Discard changes?',
  detail: 'This page has changes that are not saved. If you leave, they are lost.',
} as const;

/** Whether the answer to LEAVE_PAGE_QUESTION (the button's index) leaves the page. */
export const leavesPage = (response: number): boolean => response === 0;
