/**
 * Message batching on the main <-> worker channel, both directions. Messages sent in one
 * event-loop turn travel as one IPC message, `{type: 'batch', messages}`: each IPC write costs the
 * sending thread tens of microseconds, and a worker writes two per task (started, done), which
 * for short tasks was more than the task (a 2 859-task seed run spent 300 ms of its worker's
 * thread in IPC writes; docs/architecture.md). Order is kept; a receiver unpacks with `unbatch`
 * and validates each message as before. Imports neither electron nor react.
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

export function batcher<T>(write: (msg: T | Batch) => void): Batcher<T> {
  let queue: T[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
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
        setImmediate(flush);
      }
    },
    flush,
  };
}
