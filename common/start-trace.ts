/**
 * Start-up trace for measuring where a `gpuflow run`'s process wall goes (issue 20, bench/startup
 * and bench/engine-gpu): with GPUFLOW_TRACE_START=1, main and each worker write one stderr line per
 * milestone, `gpuflow-trace <process> <label> <ms since this process started> <epoch ms>`, which
 * the bench scripts line up by the epoch. Off by default: one environment read, nothing written.
 */
const on = typeof process !== 'undefined' && process.env.GPUFLOW_TRACE_START === '1';

/** Whether the trace is on (a child process that traces too is told this process's start). */
export const traceOn = on;

/** The epoch ms this process started at: a child's GPUFLOW_TRACE_ORIGIN, so its lines count from our start. */
export function traceOrigin(): string {
  return performance.timeOrigin.toFixed(1);
}

export function traceStart(label: string): void {
  if (!on) return;
  const now = performance.timeOrigin + performance.now();
  const who = process.env.GPUFLOW_TRACE_NAME ?? `pid${process.pid}`;
  process.stderr.write(`gpuflow-trace ${who} ${label.replace(/\s+/g, '-')} ${performance.now().toFixed(1)} ${now.toFixed(1)}\n`);
}
