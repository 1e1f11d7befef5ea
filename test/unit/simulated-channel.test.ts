import { describe, expect, it } from 'vitest';
import { createSimulatedChannel, PAIR_BURST } from '../../main/core/channel/simulated.ts';
import type { ChannelMessage } from '../../main/core/channel/types.ts';
import type { SimulatorSettingsService } from '../../main/core/modules/simulator/settings.ts';
import { DEFAULT_SIMULATOR } from '../../main/core/modules/simulator/settings.ts';
import type { UndoLog } from '../../main/core/jobs/undo.ts';
import { createUndoLog } from '../../main/core/jobs/undo.ts';
import { cryptoRandom } from '../../main/core/runtime.ts';
import { manualClock } from '../helpers.ts';

/** The simulated channel with fixed settings, on a manual clock. */
function channel(throughputMps: number, undo?: UndoLog) {
  const clock = manualClock();
  const settings = {
    get: () => ({ ...DEFAULT_SIMULATOR, messagingTier: 2000, throughputMps }),
  } as unknown as SimulatorSettingsService;
  let n = 0;
  const message = (phone: string, workspaceId = 'ws_1'): ChannelMessage => ({
    id: `msg_${n++}`,
    workspaceId,
    environment: 'test',
    phone,
    type: 'template',
    text: 'Hi',
    templateName: 'hello',
    variables: null,
    channelMessageId: `wamid.${n}`,
  });
  return { clock, sim: createSimulatedChannel(settings, cryptoRandom, clock, undo), message };
}

describe('the simulated channel answers like the provider when its limits are exceeded', () => {
  it('refuses more than throughputMps hand-overs in a second with 130429 (retryable)', () => {
    const { sim, clock, message } = channel(5);
    const codes = () => {
      const out: string[] = [];
      for (let i = 0; i < 7; i++) {
        const r = sim.handOver(message(`+1415555010${i}`), 1);
        out.push(r.ok ? 'ok' : `${r.code}${r.retryable ? ' retryable' : ''}`);
        clock.advance(100);
      }
      return out;
    };
    expect(codes()).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', '130429 retryable', '130429 retryable']);
    // A sliding second: 1.1 s after the first, the first two have left it (not all five).
    clock.advance(400);
    expect(sim.handOver(message('+14155550200'), 1).ok).toBe(true);
    expect(sim.handOver(message('+14155550201'), 1).ok).toBe(true);
    expect(sim.handOver(message('+14155550202'), 1).ok).toBe(false);
    // Another workspace has its own limit.
    expect(sim.handOver(message('+14155550203', 'ws_2'), 1).ok).toBe(true);
  });

  it('allows a burst to one person, then one message per 6 s, refusing with 131056', () => {
    const { sim, clock, message } = channel(1000);
    for (let i = 0; i < PAIR_BURST; i++) {
      expect(sim.handOver(message('+14155550100'), 1).ok).toBe(true);
      clock.advance(10);
    }
    const refused = sim.handOver(message('+14155550100'), 1);
    expect(refused).toMatchObject({ ok: false, code: '131056', retryable: true });
    // Others are not limited by it.
    expect(sim.handOver(message('+14155550101'), 1).ok).toBe(true);
    clock.advance(6000);
    expect(sim.handOver(message('+14155550100'), 1).ok).toBe(true);
    expect(sim.handOver(message('+14155550100'), 1).ok).toBe(false);
  });
});

describe('hand-overs a rollback undid never happened for the simulated provider', () => {
  it('a frame that throws takes its hand-overs back; one that ends passes them to the frame around it', () => {
    const undo = createUndoLog();
    const { sim, message } = channel(3, undo);
    // Three hand-overs in a rolled-back job: the second's window is untouched.
    expect(() =>
      undo.frame(() => {
        for (let i = 0; i < 3; i++)
          expect(sim.handOver(message(`+1415555030${i}`), 1).ok).toBe(true);
        throw new Error('the job failed after its sends');
      }),
    ).toThrow('the job failed');
    // Two kept inside a savepoint that ended, then the transaction around it rolls back.
    expect(() =>
      undo.frame(() => {
        undo.frame(() => {
          expect(sim.handOver(message('+14155550310'), 1).ok).toBe(true);
          expect(sim.handOver(message('+14155550311'), 1).ok).toBe(true);
        });
        throw new Error('the chunk rolled back');
      }),
    ).toThrow('the chunk rolled back');
    // So the full throughput (3 in the second) is still there, and then no more.
    for (let i = 0; i < 3; i++) expect(sim.handOver(message(`+1415555032${i}`), 1).ok).toBe(true);
    expect(sim.handOver(message('+14155550330'), 1)).toMatchObject({ ok: false, code: '130429' });
  });

  it('a rolled-back burst to one person leaves their pair tokens as they were', () => {
    const undo = createUndoLog();
    const { sim, clock, message } = channel(1000, undo);
    expect(() =>
      undo.frame(() => {
        for (let i = 0; i < PAIR_BURST; i++) sim.handOver(message('+14155550400'), 1);
        throw new Error('rolled back');
      }),
    ).toThrow();
    for (let i = 0; i < PAIR_BURST; i++) {
      expect(sim.handOver(message('+14155550400'), 1).ok).toBe(true);
      clock.advance(10);
    }
    expect(sim.handOver(message('+14155550400'), 1)).toMatchObject({ code: '131056' });
  });
});
