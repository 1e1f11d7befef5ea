// Loaded into `parley serve` by a bench (NODE_OPTIONS=--import …) when
// PARLEY_BENCH_LOOP_OUT names a file: the first SIGUSR2 starts measuring how late the event
// loop runs (monitorEventLoopDelay, 1 ms resolution) and how busy it is (event loop
// utilization); the second writes {p50, p99, max, busy} to that file. Nothing else changes.
import fs from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const out = process.env.PARLEY_BENCH_LOOP_OUT;
if (out) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let since = null;
  process.on('SIGUSR2', () => {
    if (!since) {
      delay.reset();
      delay.enable();
      since = performance.eventLoopUtilization();
      return;
    }
    const used = performance.eventLoopUtilization(since);
    delay.disable();
    since = null;
    const ms = (ns) => Math.round(ns / 1e5) / 10;
    fs.writeFileSync(
      out,
      JSON.stringify({
        p50: ms(delay.percentile(50)),
        p99: ms(delay.percentile(99)),
        max: ms(delay.max),
        busy: used.utilization,
      }),
    );
  });
}
