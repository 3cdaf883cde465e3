/**
 * Per node, how many of its tasks are running, erred and cancelled, from the run's 'task-state'
 * events (progress events carry only done / total). A cancelled run moves its unfinished tasks to
 * 'erred' too (main/engine/scheduler/transitions.ts), so the two are told apart by cause: a task
 * with its own 'task-error' erred; the others erred only because the run ended, and once the run's
 * 'run' event says it was cancelled they count as cancelled, with their own colour. Fed in the
 * session's per-frame batches and read by the progress panel: a mutable Versioned store, so
 * per-task events do not re-render React.
 */
import type { EngineEvent } from '../../common/events';
import { Versioned } from './versioned';

export class NodeTasks extends Versioned {
  /** Keys running now, per node. */
  private running = new Map<string, Set<string>>();
  private erred = new Map<string, Set<string>>();
  /** Keys that failed with their own error (a 'task-error'), not because the run stopped. */
  private failed = new Set<string>();
  private cancelledRun = false;

  clear() {
    this.running.clear();
    this.erred.clear();
    this.failed.clear();
    this.cancelledRun = false;
    this.changed();
  }

  addEvents(events: EngineEvent[]) {
    let touched = false;
    for (const e of events) {
      if (e.type === 'task-error') this.failed.add(e.key);
      if (e.type === 'run' && e.state === 'cancelled') {
        this.cancelledRun = true;
        touched = true;
      }
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

  /**
   * The run's result says it was cancelled: as its 'run' event would. The result and the event
   * travel apart (the result is not batched per frame), and a dropped socket may lose the event.
   */
  markCancelled() {
    if (this.cancelledRun) return;
    this.cancelledRun = true;
    this.changed();
  }

  runningOf(node: string): number {
    return this.running.get(node)?.size ?? 0;
  }

  /** Tasks that failed (in a cancelled run: only those with an error of their own). */
  erredOf(node: string): number {
    const all = this.erred.get(node);
    if (!all) return 0;
    return this.cancelledRun ? [...all].filter((k) => this.failed.has(k)).length : all.size;
  }

  /** Whether the run was cancelled: its unfinished tasks were stopped, not failed. */
  get cancelled(): boolean {
    return this.cancelledRun;
  }
}

/** The segments of a node's bar, as in Dask's progress page plus cancelled; they add up to `total`. */
export function progressSegments(
  done: number,
  total: number,
  running: number,
  erred: number,
  /** The run was cancelled: what is neither done, failed nor running was stopped. */
  cancelled = false,
): { done: number; running: number; erred: number; cancelled: number; waiting: number; total: number } {
  const d = Math.min(done, total);
  const e = Math.min(erred, total - d);
  const r = Math.min(running, total - d - e);
  // In a cancelled run every task not done, failed or running was stopped: none is left waiting.
  const c = cancelled ? total - d - e - r : 0;
  return { done: d, running: r, erred: e, cancelled: c, waiting: total - d - e - r - c, total };
}
