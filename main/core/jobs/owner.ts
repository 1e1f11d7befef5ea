import fs from 'node:fs';
import type { Random } from '../runtime.ts';
import { randomBase62 } from '../runtime.ts';

/**
 * Who holds a lease or a reservation: "<machine boot id>/<pid>/<process token>". Two processes
 * share one data dir (serve + CLI), so a lease cannot simply expire on restart: a restarted core
 * asks whether the holder still lives, and takes its work back at once when it does not.
 */
export interface ProcessOwner {
  readonly id: string;
  /** Whether the process named by `owner` may still be running. */
  isAlive(owner: string): boolean;
}

function machineBootId(): string {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

/** A SIGKILLed child stays a zombie until reaped: it is dead for our purposes. */
function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

export function processOwner(random: Random, pid = process.pid): ProcessOwner {
  const boot = machineBootId();
  const id = `${boot}/${pid}/${randomBase62(random, 12)}`;
  return {
    id,
    isAlive(owner: string): boolean {
      if (owner === id) return true;
      const [ownerBoot, ownerPid] = owner.split('/');
      const p = Number(ownerPid);
      // A lease from before the machine restarted, or from an earlier process that had our pid.
      if (ownerBoot !== boot || !Number.isInteger(p) || p <= 0 || p === pid) return false;
      try {
        process.kill(p, 0);
        return !isZombie(p);
      } catch (e) {
        // EPERM: the process exists but belongs to someone else.
        return (e as NodeJS.ErrnoException).code === 'EPERM';
      }
    },
  };
}
