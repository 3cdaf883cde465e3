/**
 * Task states and the one table of transitions: each allowed (from, to) pair maps to its effect
 * on the scheduler's books, so what a change does is read in one place, not spread over the
 * methods that cause it. `transition` records nothing itself; Scheduler.move applies the effect
 * and appends (from, to, cause, t) to the task's history (its story). A pair not in the table
 * throws with that story attached, so an impossible change is a loud bug, never a silent state.
 *
 *   waiting ---> ready ---> running ---> memory ---> done
 *      ^           |  ^         |           |           |
 *      +-----------+  +---------+           |           |   running -> ready: its worker died
 *      +<-----------------------+-----------+-----------+
 *   back to waiting: a dependency, the worker or the only holder was lost, or a lost task
 *   downstream needs a done task recomputed
 *   memory -> done: output released, or its holder died and nothing needs it
 *   waiting | ready | running -> erred: the task failed, or the run was cancelled
 */
import type { TaskState } from '../../../common/events';

/** What a transition does besides setting the state and writing the story. */
export interface TransitionEffect {
  /** The task joins its resource's ready heap. */
  readonly enqueue: boolean;
  /** Change to the count of tasks the run still needs to bring to memory or done. */
  readonly remaining: -1 | 0 | 1;
}

const NONE: TransitionEffect = { enqueue: false, remaining: 0 };
const ENQUEUE: TransitionEffect = { enqueue: true, remaining: 0 };
/** Back to waiting from a finished state: the run needs the task again. */
const REOPEN: TransitionEffect = { enqueue: false, remaining: 1 };

type Pair = `${TaskState}>${TaskState}`;

const TABLE: ReadonlyMap<Pair, TransitionEffect> = new Map<Pair, TransitionEffect>([
  ['waiting>ready', ENQUEUE], // all dependencies are in memory
  ['ready>running', NONE], // placed on a worker
  ['running>memory', { enqueue: false, remaining: -1 }], // the worker finished it and holds the output
  ['memory>done', NONE], // every dependent finished (output released), or its lost output is no longer needed
  ['running>ready', ENQUEUE], // its worker died, dependencies still available
  ['running>waiting', NONE], // its worker died and a dependency was lost with it
  ['ready>waiting', NONE], // a dependency was lost
  ['memory>waiting', REOPEN], // its only holder died and something still needs it
  ['done>waiting', REOPEN], // a lost task downstream needs it recomputed
  ['waiting>erred', NONE], // the task failed, or the run was cancelled
  ['ready>erred', NONE],
  ['running>erred', NONE],
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

/** The effect of moving task `key` from `from` to `to`; throws TransitionError for a pair not in the table. */
export function transition(key: string, from: TaskState, to: TaskState, history: HistoryEntry[]): TransitionEffect {
  const effect = TABLE.get(`${from}>${to}`);
  if (!effect) throw new TransitionError(key, from, to, history);
  return effect;
}
