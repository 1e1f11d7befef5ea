// The shell's decisions, kept free of electron imports so they are unit-tested on Node.

export interface ShellConfig {
  baseUrl: string;
  sessionToken: string;
}

/** Security settings of the window (design.md: contextIsolation on, nodeIntegration off, sandboxed). */
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
