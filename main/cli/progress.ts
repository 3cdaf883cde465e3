/** A one-line progress bar on stderr, drawn only when stderr is a terminal. */
import type { EngineEvent } from '../../common/events';

export interface ProgressPrinter {
  onEvent(e: EngineEvent): void;
  /** A progress event's figures (an attached run reads them from serve's stream). */
  onProgress(e: { runId: string; done: number; total: number }): void;
  done(): void;
}

export function progressPrinter(runId: () => string | null): ProgressPrinter {
  const tty = process.stderr.isTTY === true;
  let last = '';
  const onProgress: ProgressPrinter['onProgress'] = (e) => {
    if (!tty || e.runId !== runId()) return;
    const width = 30;
    const filled = e.total ? Math.round((e.done / e.total) * width) : width;
    const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${e.done}/${e.total} tasks`;
    if (line !== last) process.stderr.write(`\r${line}`);
    last = line;
  };
  return {
    onEvent(e) {
      if (e.type === 'progress') onProgress(e);
    },
    onProgress,
    done() {
      if (tty && last) process.stderr.write('\n');
    },
  };
}
