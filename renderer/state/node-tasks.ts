/**
 * Per node, how many of its tasks are running and how many erred, from the run's 'task-state'
 * events (progress events carry only done / total). Fed in the session's per-frame batches and
 * read by the progress panel: a mutable Versioned store, so per-task events do not re-render React.
 */
import type { EngineEvent } from '../../common/events';
import { Versioned } from './versioned';

export class NodeTasks extends Versioned {
  /** Keys running now, per node. */
  private running = new Map<string, Set<string>>();
  private erred = new Map<string, Set<string>>();

  clear() {
    this.running.clear();
    this.erred.clear();
    this.changed();
  }

  addEvents(events: EngineEvent[]) {
    let touched = false;
    for (const e of events) {
      if (e.type !== 'task-state') continue;
      touched = true;
      const run = this.running.get(e.node) ?? new Set<string>();
      this.running.set(e.node, run);
      if (e.to === 'running') run.add(e.key);
      else run.delete(e.key);
      if (e.to === 'erred') {
        const err = this.erred.get(e.node) ?? new Set<string>();
        this.erred.set(e.node, err);
        err.add(e.key);
      }
    }
    if (touched) this.changed();
  }

  runningOf(node: string): number {
    return this.running.get(node)?.size ?? 0;
  }

  erredOf(node: string): number {
    return this.erred.get(node)?.size ?? 0;
  }
}

/** The four segments of a node's bar, as in Dask's progress page; they add up to `total`. */
export function progressSegments(done: number, total: number, running: number, erred: number): { done: number; running: number; erred: number; waiting: number; total: number } {
  const d = Math.min(done, total);
  const e = Math.min(erred, total - d);
  const r = Math.min(running, total - d - e);
  return { done: d, running: r, erred: e, waiting: total - d - e - r, total };
}
