import { createHash } from 'node:crypto';
import { MAGIC_NUMBERS } from '../../../shared/phone.ts';
import type { SimulatorSettingsService } from '../modules/simulator/settings.ts';
import type { Random } from '../runtime.ts';
import { randomBase62 } from '../runtime.ts';
import type { ChannelMessage, DeliveryOutcome, LocalChannel } from './types.ts';

/**
 * The simulated channel (every test-key message; live ones too until a real channel is
 * connected). Deterministic: latencies depend only on the workspace's seed and the message id.
 * Magic numbers: +15550000001 always fails 131026; +15550000002 fails once with a retryable
 * error, then succeeds; +15550000003 is delivered but never read.
 */
export function createSimulatedChannel(
  settings: SimulatorSettingsService,
  random: Random,
): LocalChannel {
  /** A factor in [0.75, 1.25] from (seed, message id, salt). */
  const factor = (seed: number, id: string, salt: string) => {
    const h = createHash('sha256').update(`${seed}:${id}:${salt}`).digest();
    return 0.75 + (h.readUInt16BE(0) / 65535) * 0.5;
  };
  return {
    kind: 'local',
    newMessageId: () => `wamid.${randomBase62(random, 32)}`,
    handOver(m: ChannelMessage, attempt: number): DeliveryOutcome {
      if (m.phone === MAGIC_NUMBERS.alwaysFails) {
        return { ok: false, retryable: false, code: '131026', message: 'Message undeliverable' };
      }
      if (m.phone === MAGIC_NUMBERS.failsOnceThenSucceeds && attempt === 1) {
        return {
          ok: false,
          retryable: true,
          code: '131000',
          message: 'Something went wrong; the send is retried',
        };
      }
      const s = settings.get(m.workspaceId);
      const delivered = Math.round(s.deliveryLatencyMs * factor(s.seed, m.id, 'delivered'));
      const read = delivered + Math.round(s.readLatencyMs * factor(s.seed, m.id, 'read'));
      return {
        ok: true,
        followUps:
          m.phone === MAGIC_NUMBERS.deliveredNeverRead
            ? [{ status: 'delivered', delayMs: delivered }]
            : [
                { status: 'delivered', delayMs: delivered },
                { status: 'read', delayMs: read },
              ],
      };
    },
  };
}
