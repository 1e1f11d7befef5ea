import os from 'node:os';
import path from 'node:path';

export const APP_NAME = 'Parley';

/**
 * The per-user app-data folder, the same one Electron's app.getPath('userData') gives the
 * desktop app, so the CLI, `parley serve` and the window share one store by default.
 */
export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): string {
  if (env.PARLEY_DATA_DIR) return path.resolve(env.PARLEY_DATA_DIR);
  const home = os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', APP_NAME);
  if (platform === 'win32')
    return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), APP_NAME);
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), APP_NAME);
}
