/**
 * Progress on stderr: a one-line bar redrawn in place when stderr is a terminal; for a Dask run
 * whose stderr is not a terminal (a log, a pipe, a benchmark script), a line at most every few
 * seconds, so that a slow run is never silent: tasks done / total and where they ran (the task
 * events' backends, e.g. `capi-cuda` on a GPU worker, `numpy` where no kernel library loaded).
 */
import type { EngineEvent } from '../../common/events';

export interface ProgressPrinter {
  onEvent(e: EngineEvent): void;
  /** A progress event's figures (an attached run reads them from serve's stream). */
  onProgress(e: { runId: string; done: number; total: number }): void;
  done(): void;
}

export interface ProgressOptions {
  /** Progress lines for a non-terminal stderr, at most one per `everyMs` (a Dask run). */
  lines?: boolean;
  everyMs?: number;
  /** Injected in tests; default process.stderr and the wall clock. */
  isTTY?: boolean;
  write?: (s: string) => void;
  now?: () => number;
}

/** `capi-cuda 10, numpy 2`: the tasks counted by backend, most first. */
export function backendCounts(counts: ReadonlyMap<string, number>): string {
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k, n]) => `${k} ${n}`).join(', ');
}

export function progressPrinter(runId: () => string | null, o: ProgressOptions = {}): ProgressPrinter {
  const tty = o.isTTY ?? process.stderr.isTTY === true;
  const write = o.write ?? ((s: string) => void process.stderr.write(s));
  const now = o.now ?? Date.now;
  const lines = !tty && o.lines === true;
  const everyMs = o.everyMs ?? 5000;
  const started = now();
  const backends = new Map<string, number>();
  let last = '';
  let lastAt = -Infinity;
  let pending: { done: number; total: number } | null = null;
  // Before the run's id is known (`gpuflow run` learns it when runAsync returns, after the first
  // events of a fast run), every run's events count: the CLI runs one.
  const mine = (id: string) => {
    const want = runId();
    return want === null || want === id;
  };
  const line = (e: { done: number; total: number }) => {
    const where = backendCounts(backends);
    return `dask: ${e.done}/${e.total} tasks done${where ? ` (${where})` : ''} after ${((now() - started) / 1000).toFixed(1)} s\n`;
  };
  const onProgress: ProgressPrinter['onProgress'] = (e) => {
    if (!mine(e.runId)) return;
    if (lines) {
      // The first figures at once, then at most one line per everyMs; the last one at done().
      pending = e;
      if (now() - lastAt < everyMs) return;
      write(line(e));
      lastAt = now();
      pending = null;
      return;
    }
    if (!tty) return;
    const width = 30;
    const filled = e.total ? Math.round((e.done / e.total) * width) : width;
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${e.done}/${e.total} tasks`;
    if (bar !== last) write(`\r${bar}`);
    last = bar;
  };
  return {
    onEvent(e) {
      if (e.type === 'task' && mine(e.runId)) backends.set(e.backend, (backends.get(e.backend) ?? 0) + 1);
      if (e.type === 'progress') onProgress(e);
    },
    onProgress,
    done() {
      if (lines && pending) write(line(pending));
      pending = null;
      if (tty && last) write('\n');
    },
  };
}
