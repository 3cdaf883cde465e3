/**
 * The one event stream. Every state change of a run is an event with a sequence number and the
 * id of the event that caused it; the task stream, progress bars, the store and `story(key)` all
 * read this same stream.
 */
import type { JsonValue } from './arrays';
import type { DeviceTraffic, WorkerKind } from './messages';

export type TaskState = 'waiting' | 'ready' | 'running' | 'memory' | 'done' | 'erred';

export type EngineEvent =
  /** `benchId`: a run of that benchmark (its events come from the benchmark's own pool, forwarded). */
  | { type: 'run'; seq: number; t: number; runId: string; state: 'started' | 'finished' | 'failed' | 'cancelled'; tasks?: number; error?: string; cause?: number; benchId?: string }
  | { type: 'task-state'; seq: number; t: number; runId: string; key: string; node: string; from: TaskState; to: TaskState; worker?: string; cause: number }
  /** A task ran: one rectangle of the task stream. */
  | { type: 'task'; seq: number; t: number; runId: string; key: string; node: string; op: string; worker: string; start: number; end: number; bytes: number; backend: string; device?: DeviceTraffic; cause: number }
  | { type: 'transfer'; seq: number; t: number; runId: string; key: string; from: string; to: string; bytes: number; start: number; end: number; cause: number; via?: 'ipc' | 'host' }
  /** Progress reported by a running task, e.g. a tuning trial's epoch {epoch, loss, metric}. */
  | { type: 'task-progress'; seq: number; t: number; runId: string; key: string; node: string; worker: string; payload: Record<string, JsonValue> }
  | { type: 'task-error'; seq: number; t: number; runId: string; key: string; node: string; worker: string; message: string; code?: string; cause: number }
  /** `gone`: its device is gone; the worker is stopped and not restarted (reason says why). */
  | { type: 'worker'; seq: number; t: number; worker: string; kind: WorkerKind; label: string; state: 'up' | 'down' | 'gone'; reason?: string; pid?: number }
  /** The run queue changed (main/api/run-queue.ts): its entries in order, the running one first; `refused`: an entry that could not start. */
  | { type: 'queue'; seq: number; t: number; entries: QueueEntry[]; refused?: { id: string; label: string; errors: string[] } }
  /** Tasks of the run the result cache spared (held outputs, and what only fed them); `nodes` had all their tasks spared. */
  | { type: 'reused'; seq: number; t: number; runId: string; tasks: number; nodes: string[]; cause: number }
  | { type: 'progress'; seq: number; t: number; runId: string; done: number; total: number; byNode: Record<string, [number, number]> }
  | { type: 'log'; seq: number; t: number; level: 'info' | 'warn' | 'error'; message: string };

/** A run waiting in the queue, or the one the queue started and is running. */
export interface QueueEntry {
  id: string;
  /** What it runs: the workflow's name, and the node for "run selected". */
  label: string;
  /** Run selected: the node it runs (with what it needs upstream); null for the whole workflow. */
  node: string | null;
  state: 'queued' | 'running';
  runId: string | null;
  storeId: number | null;
  queuedAt: number;
}

/** An event before the stream assigns its sequence number and time. */
export type EventDraft = EngineEvent extends infer E ? (E extends EngineEvent ? Omit<E, 'seq' | 't'> & { t?: number } : never) : never;
