/**
 * When this window tells the core its person is here (README "Working together"): `active` on
 * input, at most once a minute while it goes on, and `idle` once 5 minutes pass without input or
 * as soon as the window is hidden. The core turns those into online / away for everyone else.
 * Pure: the clock, the timers and the request are given, so the rule is tested without a DOM.
 */

export type ActivityState = 'active' | 'idle';

/** While input goes on, `active` is said again this often (the core counts 5 min from it). */
export const ACTIVE_REPORT_EVERY_MS = 60_000;
/** No input for this long: `idle` (the core's `away`). */
export const IDLE_AFTER_MS = 5 * 60_000;

export interface ActivityReporterDeps {
  now: () => number;
  report: (state: ActivityState) => void;
  setTimer: (run: () => void, ms: number) => unknown;
  clearTimer: (timer: unknown) => void;
}

export interface ActivityReporter {
  /** The person used the window (a key, a click, the pointer, the window shown or focused). */
  input: () => void;
  /** The window was hidden (minimised, another tab): idle at once. */
  hidden: () => void;
  /** Stops the idle timer; nothing more is reported. */
  stop: () => void;
}

export function createActivityReporter(deps: ActivityReporterDeps): ActivityReporter {
  let reported: ActivityState | null = null;
  let reportedActiveAt = -Infinity;
  let lastInputAt = -Infinity;
  let timer: unknown = null;
  let stopped = false;

  const clear = (): void => {
    if (timer !== null) deps.clearTimer(timer);
    timer = null;
  };

  const say = (state: ActivityState): void => {
    reported = state;
    if (state === 'active') reportedActiveAt = deps.now();
    deps.report(state);
  };

  /** Fires when the quiet may have lasted long enough; input since pushes it back. */
  const armIdle = (ms: number): void => {
    timer = deps.setTimer(() => {
      timer = null;
      if (stopped) return;
      const quiet = deps.now() - lastInputAt;
      if (quiet >= IDLE_AFTER_MS) {
        if (reported !== 'idle') say('idle');
      } else {
        armIdle(IDLE_AFTER_MS - quiet);
      }
    }, ms);
  };

  return {
    input: () => {
      if (stopped) return;
      const now = deps.now();
      lastInputAt = now;
      if (reported !== 'active' || now - reportedActiveAt >= ACTIVE_REPORT_EVERY_MS) {
        say('active');
      }
      // One timer for a stream of input: it re-arms itself for what is left when it fires.
      if (timer === null) armIdle(IDLE_AFTER_MS);
    },
    hidden: () => {
      if (stopped) return;
      clear();
      lastInputAt = -Infinity;
      if (reported !== 'idle') say('idle');
    },
    stop: () => {
      stopped = true;
      clear();
    },
  };
}
