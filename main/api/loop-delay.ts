/**
 * serve's own event-loop delay, for tests and benchmarks that need to know how long the loop
 * stalled under some load (the HTTP fuzzer): with GPUFLOW_SERVE_LOOP_STATS=1, serve samples
 * perf_hooks' monitorEventLoopDelay and prints one line when it stops. Measured inside serve, so
 * a slow client does not count; the OS keeping serve off a core on a loaded machine still does.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Starts sampling when switched on; `report()` stops it and gives the line to print (or null). */
export function loopDelayMonitor(env: NodeJS.ProcessEnv = process.env): { report(): string | null } {
  if (env.GPUFLOW_SERVE_LOOP_STATS !== '1') return { report: () => null };
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return {
    report() {
      h.disable();
      const ms = (ns: number) => (ns / 1e6).toFixed(1);
      return `gpuflow serve: loop delay max ${ms(h.max)} ms, p99 ${ms(h.percentile(99))} ms, mean ${ms(h.mean)} ms over ${h.count} samples`;
    },
  };
}
