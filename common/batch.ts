/**
 * Message batching on the main <-> worker channel, both directions. Messages sent in one
 * event-loop turn travel as one IPC message, `{type: 'batch', messages}`: each IPC write costs the
 * sending thread tens of microseconds, and a worker writes two per task (started, done), which
 * for short tasks was more than the task (a 2 859-task seed run spent 300 ms of its worker's
 * thread in IPC writes; docs/architecture.md). Order is kept; a receiver unpacks with `unbatch`
 * and validates each message as before. Imports neither electron nor react.
 *
 * A sender may also linger: while `linger.when()` holds at the first message of a batch, the batch
 * is written `linger.ms` later instead of at the end of the turn. A GPU worker lingers while other
 * kernels are in flight: its kernels end one at a time, each in its own turn, so per-turn batches
 * held one `done` each (on the device-bound bench, 0.7 IPC writes a task each way); main has
 * queued enough work on it (main/engine/run.ts slotsOf) that a done reported 1 ms later costs
 * nothing, and the last one is never held.
 */
export interface Batch {
  type: 'batch';
  messages: unknown[];
}

function isBatch(raw: unknown): raw is Batch {
  return typeof raw === 'object' && raw !== null && (raw as { type?: unknown }).type === 'batch' && Array.isArray((raw as { messages?: unknown }).messages);
}

/** Calls fn with each message of a batch, in order, or with `raw` itself. */
export function unbatch(raw: unknown, fn: (m: unknown) => void): void {
  if (isBatch(raw)) for (const m of raw.messages) fn(m);
  else fn(raw);
}

export interface Batcher<T> {
  /** Queues a message; the queue is written once this turn of the event loop is over. */
  send(msg: T): void;
  /** Writes what is queued now (before an exit, or for a message that must not wait). */
  flush(): void;
}

export interface Linger {
  ms: number;
  /** Asked when a batch starts: whether to hold it `ms` instead of writing it this turn. */
  when: () => boolean;
}

export function batcher<T>(write: (msg: T | Batch) => void, linger?: Linger): Batcher<T> {
  let queue: T[] = [];
  let scheduled = false;
  /** The pending batch waits for a timer (linger), not for the end of the turn. */
  let held = false;
  const flush = () => {
    scheduled = false;
    held = false;
    if (queue.length === 0) return;
    const out = queue;
    queue = [];
    write(out.length === 1 ? out[0] : { type: 'batch', messages: out });
  };
  return {
    send(msg) {
      queue.push(msg);
      if (!scheduled) {
        scheduled = true;
        held = linger?.when() ?? false;
        if (held) setTimeout(flush, linger!.ms);
        else setImmediate(flush);
      } else if (held && !linger!.when()) {
        // Nothing else in flight any more (the last kernel's done): write it this turn.
        held = false;
        setImmediate(flush);
      }
    },
    flush,
  };
}
