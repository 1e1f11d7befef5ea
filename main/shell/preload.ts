// Runs sandboxed before the renderer: hands it the core's base URL and the per-launch session
// token, plus three desktop touches (notification, badge, open-conversation on click). Data
// never crosses IPC; the renderer uses the HTTP API.
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
    onOpenConversation: (cb: (conversationId: string) => void) => {
      const listener = (_e: unknown, id: string) => cb(id);
      ipcRenderer.on('parley:open-conversation', listener);
      return () => ipcRenderer.off('parley:open-conversation', listener);
    },
  }),
);
