/**
 * Task states and the one table of allowed transitions. Every change goes through `transition`,
 * which records (from, to, cause, t) in the task's history; a pair not in the table throws with
 * that history attached, so an impossible change is a loud bug, never a silent state.
 *
 *   waiting -> ready      all dependencies are in memory
 *   ready   -> running    placed on a worker
 *   running -> memory     the worker finished it and holds the output
 *   memory  -> done       every dependent has finished; the output is released
 *   running -> ready      its worker died (dependencies still available)
 *   running -> waiting    its worker died and a dependency was lost with it
 *   ready   -> waiting    a dependency was lost
 *   memory  -> waiting    its only holder died and something still needs it
 *   done    -> waiting    a lost task downstream needs it recomputed
 *   * -> erred            the task failed, or the run was cancelled
 */
import type { TaskState } from '../../../common/events';

const ALLOWED: ReadonlySet<string> = new Set([
  'waiting>ready',
  'ready>running',
  'running>memory',
  'memory>done',
  'running>ready',
  'running>waiting',
  'ready>waiting',
  'memory>waiting',
  'done>waiting',
  'waiting>erred',
  'ready>erred',
  'running>erred',
]);

export interface HistoryEntry {
  from: TaskState;
  to: TaskState;
  cause: number;
  t: number;
  worker?: string;
  /** The task started in this state, reused from an earlier run (scheduler preload). */
  reused?: boolean;
}

export class TransitionError extends Error {
  constructor(
    readonly key: string,
    readonly from: TaskState,
    readonly to: TaskState,
    readonly history: HistoryEntry[],
  ) {
    super(`task ${key}: no transition ${from} -> ${to}; history: ${history.map((h) => `${h.from}->${h.to}@${h.cause}`).join(', ') || 'none'}`);
    this.name = 'TransitionError';
  }
}

export function checkTransition(key: string, from: TaskState, to: TaskState, history: HistoryEntry[]): void {
  if (!ALLOWED.has(`${from}>${to}`)) throw new TransitionError(key, from, to, history);
}
