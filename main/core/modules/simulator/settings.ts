import type { Database as Db } from 'better-sqlite3';
import type { Environment } from '../../../../shared/schemas/common.ts';
import type { SimulatorSettings } from '../../../../shared/schemas/simulator.ts';

export const DEFAULT_SIMULATOR: SimulatorSettings = {
  seed: 42,
  reviewDelayMs: 2000,
  approvalWaitMs: 600_000,
  deliveryLatencyMs: 800,
  readLatencyMs: 2500,
  messagingTier: 2000,
  throughputMps: 80,
  emailRatePerSecond: 50,
};

/** The workspace's simulated provider settings (design.md §4): defaults plus what was changed. */
export function simulatorSettings(db: Db) {
  const get = db.prepare('SELECT settings FROM simulator_settings WHERE workspace_id = ?').pluck();
  const put = db.prepare(
    `INSERT INTO simulator_settings (workspace_id, settings) VALUES (?, ?)
     ON CONFLICT (workspace_id) DO UPDATE SET settings = excluded.settings`,
  );
  const service = {
    get(workspaceId: string): SimulatorSettings {
      const stored = get.get(workspaceId) as string | undefined;
      return {
        ...DEFAULT_SIMULATOR,
        ...(stored ? (JSON.parse(stored) as Partial<SimulatorSettings>) : {}),
      };
    },
    update(workspaceId: string, patch: Partial<SimulatorSettings>): SimulatorSettings {
      const stored = get.get(workspaceId) as string | undefined;
      const next = {
        ...(stored ? (JSON.parse(stored) as Partial<SimulatorSettings>) : {}),
        ...patch,
      };
      put.run(workspaceId, JSON.stringify(next));
      return service.get(workspaceId);
    },
    /** Test templates are usable at once; live ones after the post-approval wait. */
    approvalWait: (workspaceId: string, env: Environment) =>
      env === 'test' ? 0 : service.get(workspaceId).approvalWaitMs,
  };
  return service;
}
export type SimulatorSettingsService = ReturnType<typeof simulatorSettings>;
