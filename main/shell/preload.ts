// Runs sandboxed before the renderer: hands it the core's base URL and the per-launch session
// token (on this computer's desk only: a joined team desk's pages get none), three desktop
// touches (notification, badge, open-conversation on click) and the list of desks (which the
// shell answers for this computer's desk only). Data never crosses IPC; the renderer uses the
// HTTP API.
import { contextBridge, ipcRenderer } from 'electron';
import type { NotifyRequest, ShellConfig } from './policy.ts';

const config = ipcRenderer.sendSync('parley:config') as ShellConfig;

contextBridge.exposeInMainWorld(
  'parley',
  Object.freeze({
    baseUrl: config.baseUrl,
    sessionToken: config.sessionToken,
    notify: (n: NotifyRequest) => ipcRenderer.send('parley:notify', n),
    setUnreadCount: (n: number) => ipcRenderer.send('parley:badge', n),
    desks: Object.freeze({
      list: () => ipcRenderer.invoke('parley:desks:list'),
      join: (inviteLink: string) => ipcRenderer.invoke('parley:desks:join', inviteLink),
      open: (origin: string) => ipcRenderer.invoke('parley:desks:open', origin),
      forget: (origin: string) => ipcRenderer.invoke('parley:desks:forget', origin),
    }),
    onOpenConversation: (cb: (conversationId: string) => void) => {
      const listener = (_e: unknown, id: string) => cb(id);
      ipcRenderer.on('parley:open-conversation', listener);
      return () => ipcRenderer.off('parley:open-conversation', listener);
    },
  }),
);
