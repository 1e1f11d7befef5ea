// Runs sandboxed before the renderer: hands it the core's base URL and the per-launch session
// token, and nothing else. Data never crosses IPC; the renderer uses the HTTP API.
import { contextBridge, ipcRenderer } from 'electron';
import type { ShellConfig } from './policy.ts';

const config = ipcRenderer.sendSync('parley:config') as ShellConfig;
contextBridge.exposeInMainWorld(
  'parley',
  Object.freeze({ baseUrl: config.baseUrl, sessionToken: config.sessionToken }),
);
