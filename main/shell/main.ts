// The Electron shell: start the core on a free loopback port, open the window, hand the
// renderer the base URL and session token through the preload, shut down cleanly.
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  Notification,
  safeStorage,
  session,
  shell,
} from 'electron';
import type { IpcMainInvokeEvent } from 'electron';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Core } from '../core/core.ts';
import { createCore } from '../core/core.ts';
import { retentionFromEnv } from '../core/jobs/retention.ts';
import { keychainKeyProvider } from '../core/secrets.ts';
import { fetchServerCertificate } from '../core/net/pin.ts';
import type { DeskStore } from './desks.ts';
import { certificateVerdict, deskStore, InviteLinkError, parseInvite } from './desks.ts';
import {
  badgeCount,
  configFor,
  electronNativeBinding,
  isExternalHttpUrl,
  isInternalUrl,
  LEAVE_PAGE_QUESTION,
  leavesPage,
  notificationFrom,
  webPreferences,
} from './policy.ts';

const buildDir = path.dirname(path.dirname(fileURLToPath(import.meta.url))); // .build/
let core: Core | null = null;
let win: BrowserWindow | null = null;
let baseUrl = '';
let desks: DeskStore | null = null;
/** The desk the window shows: this computer's (baseUrl) or a joined team desk's origin. */
let currentOrigin = '';

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
  desks = deskStore(dataDir);
  currentOrigin = new URL(baseUrl).origin;
  trustJoinedDesks();
  registerDeskIpc();
  // The per-launch token is this computer's desk's alone: a joined desk's pages (another
  // machine's server) never receive it (policy.ts configFor).
  ipcMain.on('parley:config', (event) => {
    event.returnValue = configFor(event.senderFrame?.url ?? '', baseUrl, core?.sessionToken ?? '');
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
    if (!isDeskUrl(url)) {
      event.preventDefault();
      if (isExternalHttpUrl(url)) void shell.openExternal(url);
    }
  });
  // A page with unsaved changes (the workflow builder) asks before it is closed or left: Electron
  // would cancel without a word, so the question is asked here.
  win.webContents.on('will-prevent-unload', (event) => {
    const owner = win;
    if (!owner) return;
    const response = dialog.showMessageBoxSync(owner, {
      ...LEAVE_PAGE_QUESTION,
      buttons: [...LEAVE_PAGE_QUESTION.buttons],
    });
    if (leavesPage(response)) event.preventDefault();
  });
  win.on('closed', () => {
    win = null;
  });
  void win.loadURL(baseUrl);
  buildMenu();
}

/** The window shows this computer's desk and the desks it joined; anything else opens outside. */
function isDeskUrl(url: string): boolean {
  return (
    isInternalUrl(url, baseUrl) || (desks?.list() ?? []).some((d) => isInternalUrl(url, d.origin))
  );
}

/**
 * A joined desk's self-signed certificate is trusted when it is the one pinned at join time,
 * refused (with the reason shown once) when it is another; every other site is left to
 * Chromium's own verification (README "Working as a team").
 */
function trustJoinedDesks() {
  const told = new Set<string>();
  session.defaultSession.setCertificateVerifyProc((request, callback) => {
    // Electron names the host, not the port: every desk joined on that host must match.
    let verdict: ReturnType<typeof certificateVerdict>;
    try {
      const der = new X509Certificate(request.certificate.data).raw;
      verdict = certificateVerdict(desks?.list() ?? [], request.hostname, '', der);
    } catch {
      verdict = 'default';
    }
    if (verdict === 'trust') return callback(0);
    if (verdict === 'default') return callback(-3);
    callback(-2);
    if (!told.has(request.hostname)) {
      told.add(request.hostname);
      void dialog.showMessageBox({
        type: 'warning',
        title: 'The desk’s certificate changed',
        message: `${request.hostname} no longer shows the certificate you joined it with.`,
        detail:
          'If its admin renewed the certificate, paste the new invite link they give you (Settings → Team → Join a team desk). Otherwise someone may be between you and the desk: nothing was sent to it.',
      });
    }
  });
}

/** Only this computer's desk may manage the list of desks (a joined desk's page may not). */
function fromLocalDesk(event: IpcMainInvokeEvent): boolean {
  return isInternalUrl(event.senderFrame?.url ?? '', baseUrl);
}

function deskList() {
  return [
    { origin: new URL(baseUrl).origin, name: 'This computer', kind: 'local' as const },
    ...(desks?.list() ?? []).map((d) => ({ ...d, kind: 'team' as const })),
  ];
}

function openDesk(origin: string, path = '/') {
  if (!win) return;
  currentOrigin = origin;
  void win.loadURL(`${origin}${path}`);
  buildMenu();
}

function registerDeskIpc() {
  ipcMain.handle('parley:desks:list', (event) => (fromLocalDesk(event) ? deskList() : []));
  ipcMain.handle('parley:desks:join', async (event, link: unknown) => {
    if (!fromLocalDesk(event) || typeof link !== 'string') return { ok: false, error: 'refused' };
    try {
      const invite = parseInvite(link);
      // The desk must show the certificate the invite names before anything is sent to it.
      const shown = await fetchServerCertificate(invite.origin, { timeoutMs: 5_000 });
      if (shown.fingerprint !== invite.fingerprint) {
        return {
          ok: false,
          error: `${invite.origin} shows another certificate than the invite names (${shown.fingerprint}): ask your admin for a new invite, and join only on your own network.`,
        };
      }
      desks!.save(invite, new URL(invite.origin).hostname, new Date());
      openDesk(invite.origin, new URL(invite.joinUrl).pathname + new URL(invite.joinUrl).hash);
      return { ok: true };
    } catch (e) {
      const reason =
        e instanceof InviteLinkError
          ? e.message
          : `Could not reach the desk: ${(e as Error).message}. Check you are on the same network as it.`;
      return { ok: false, error: reason };
    }
  });
  ipcMain.handle('parley:desks:forget', (event, origin: unknown) => {
    if (!fromLocalDesk(event) || typeof origin !== 'string') return deskList();
    desks?.remove(origin);
    return deskList();
  });
  ipcMain.handle('parley:desks:open', (event, origin: unknown) => {
    if (!fromLocalDesk(event) || typeof origin !== 'string') return false;
    if (!deskList().some((d) => d.origin === origin)) return false;
    openDesk(origin);
    return true;
  });
}

/** The Desks menu: switch between this computer's desk and the joined ones from any page. */
function buildMenu() {
  const template: Electron.MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    { role: 'editMenu' },
    {
      label: 'Desks',
      submenu: [
        ...deskList().map((d) => ({
          label: d.kind === 'local' ? 'This computer' : `${d.name} (${new URL(d.origin).host})`,
          type: 'radio' as const,
          checked: d.origin === currentOrigin,
          click: () => openDesk(d.origin),
        })),
        { type: 'separator' as const },
        {
          label: 'Join a team desk…',
          click: () => openDesk(new URL(baseUrl).origin, '/#/settings/team'),
        },
      ],
    },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
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
