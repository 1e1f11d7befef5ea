// The Electron shell: start the core on a free loopback port, open the window, hand the
// renderer the base URL and session token through the preload, shut down cleanly.
import { app, BrowserWindow, dialog, ipcMain, Notification, safeStorage, shell } from 'electron';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Core } from '../core/core.ts';
import { createCore } from '../core/core.ts';
import { retentionFromEnv } from '../core/jobs/retention.ts';
import { keychainKeyProvider } from '../core/secrets.ts';
import {
  badgeCount,
  electronNativeBinding,
  isExternalHttpUrl,
  isInternalUrl,
  notificationFrom,
  webPreferences,
} from './policy.ts';

const buildDir = path.dirname(path.dirname(fileURLToPath(import.meta.url))); // .build/
let core: Core | null = null;
let win: BrowserWindow | null = null;
let baseUrl = '';

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  app.whenReady().then(start, (e: unknown) => fatal(e));
}

async function start() {
  const dataDir = process.env.PARLEY_DATA_DIR ?? app.getPath('userData');
  const binding = electronNativeBinding(buildDir, app.isPackaged);
  try {
    core = await createCore({
      dataDir,
      rendererDir: path.join(buildDir, 'renderer'),
      // The window authenticates with the per-launch token its preload hands over; browser
      // sign-in (headless serve's login link and cookie) is not offered by the desktop core.
      browserLogin: false,
      retention: retentionFromEnv(process.env),
      // The data key that seals provider secrets, wrapped by the OS keychain (README "Data, backups and security");
      // secret.key alone where the keychain offers no encryption.
      keyProvider: keychainKeyProvider(dataDir, safeStorage),
      ...(binding && fs.existsSync(binding) ? { nativeBinding: binding } : {}),
    });
    ({ url: baseUrl } = await core.start({ host: '127.0.0.1', port: 0 }));
  } catch (e) {
    fatal(e);
    return;
  }
  ipcMain.on('parley:config', (event) => {
    event.returnValue = { baseUrl, sessionToken: core?.sessionToken ?? '' };
  });
  // Desktop touches: a native notification for a new inbound message while the window is not
  // focused (a click brings the window back on that conversation), and the unread badge.
  ipcMain.on('parley:notify', (event, payload: unknown) => {
    const n = notificationFrom(payload);
    if (
      !n ||
      !win ||
      event.sender !== win.webContents ||
      win.isFocused() ||
      !Notification.isSupported()
    )
      return;
    const note = new Notification({ title: n.title, body: n.body, silent: false });
    note.on('click', () => {
      if (!win) return;
      if (win.isMinimized()) win.restore();
      win.show();
      win.focus();
      win.webContents.send('parley:open-conversation', n.conversationId);
    });
    note.show();
    if (process.platform === 'win32') win.flashFrame(true);
  });
  ipcMain.on('parley:badge', (event, count: unknown) => {
    if (!win || event.sender !== win.webContents) return;
    const n = badgeCount(count);
    app.setBadgeCount(n); // macOS dock and Linux launchers that support it
    win.setTitle(n > 0 ? `Parley (${n})` : 'Parley');
  });
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
}

function createWindow() {
  win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    title: 'Parley',
    show: false,
    webPreferences: webPreferences(path.join(buildDir, 'main', 'preload.cjs')),
  });
  win.once('ready-to-show', () => win?.show());
  win.on('focus', () => win?.flashFrame(false));
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (isExternalHttpUrl(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (event, url) => {
    if (!isInternalUrl(url, baseUrl)) {
      event.preventDefault();
      if (isExternalHttpUrl(url)) void shell.openExternal(url);
    }
  });
  win.on('closed', () => {
    win = null;
  });
  void win.loadURL(baseUrl);
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

// Clean shutdown: stop accepting, let in-flight requests finish, close the database, then exit.
let stopped = false;
app.on('before-quit', (event) => {
  if (stopped || !core) return;
  event.preventDefault();
  const c = core;
  core = null;
  c.stop()
    .catch((e: unknown) => console.error('parley: error while stopping', e))
    .finally(() => {
      stopped = true;
      app.quit();
    });
});

function fatal(e: unknown) {
  const message = e instanceof Error ? e.message : String(e);
  console.error(`parley: ${message}`);
  dialog.showErrorBox('Parley cannot start', message);
  app.exit(1);
}
