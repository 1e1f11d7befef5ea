import type { Database as Db } from 'better-sqlite3';
import type { Environment } from '../../../../shared/schemas/common.ts';
import {
  SIMULATOR_DEFAULTS,
  type SimulatorSettings,
} from '../../../../shared/schemas/simulator.ts';
import { simulatorRepo } from './repo.ts';

type StoredSettings = Omit<SimulatorSettings, 'messagingTier' | 'throughputMps'>;

const {
  messagingTier: DEFAULT_TIER,
  throughputMps: DEFAULT_THROUGHPUT,
  ...storedDefaults
} = SIMULATOR_DEFAULTS;
export const DEFAULT_SIMULATOR: StoredSettings = storedDefaults;

/**
 * The workspace's simulated provider settings (README "API"): defaults plus what was changed.
 * The messaging tier and throughput belong to the active business account (it is what
 * `/api/me` shows and the runners obey); the simulator reads and writes them there.
 */
export function simulatorSettings(db: Db) {
  const repo = simulatorRepo(db);
  const stored = (workspaceId: string): Partial<StoredSettings> => {
    const json = repo.get(workspaceId);
    return json ? (JSON.parse(json) as Partial<StoredSettings>) : {};
  };
  const service = {
    get(workspaceId: string): SimulatorSettings {
      const a = repo.account(workspaceId);
      return {
        ...DEFAULT_SIMULATOR,
        ...stored(workspaceId),
        messagingTier: a ? a.messaging_tier : DEFAULT_TIER,
        throughputMps: a ? a.throughput_mps : DEFAULT_THROUGHPUT,
      };
    },
    update(workspaceId: string, patch: Partial<SimulatorSettings>): SimulatorSettings {
      const { messagingTier, throughputMps, ...rest } = patch;
      db.transaction(() => {
        repo.put(workspaceId, JSON.stringify({ ...stored(workspaceId), ...rest }));
        if (messagingTier !== undefined) repo.setTier(workspaceId, messagingTier);
        if (throughputMps !== undefined) repo.setThroughput(workspaceId, throughputMps);
      })();
      return service.get(workspaceId);
    },
    /** Test templates are usable at once; live ones after the post-approval wait. */
    approvalWait: (workspaceId: string, env: Environment) =>
      env === 'test' ? 0 : service.get(workspaceId).approvalWaitMs,
  };
  return service;
}
export type SimulatorSettingsService = ReturnType<typeof simulatorSettings>;
