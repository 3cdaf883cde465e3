/** A one-line progress bar on stderr, drawn only when stderr is a terminal. */
import type { EngineEvent } from '../../common/events';

export function progressPrinter(runId: () => string | null): { onEvent(e: EngineEvent): void; done(): void } {
  const tty = process.stderr.isTTY === true;
  let last = '';
  return {
    onEvent(e) {
      if (!tty || e.type !== 'progress' || e.runId !== runId()) return;
      const width = 30;
      const filled = e.total ? Math.round((e.done / e.total) * width) : width;
      const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${e.done}/${e.total} tasks`;
      if (line !== last) process.stderr.write(`\r${line}`);
      last = line;
    },
    done() {
      if (tty && last) process.stderr.write('\n');
    },
  };
}
