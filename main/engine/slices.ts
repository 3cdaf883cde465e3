/**
 * Cooperative long work on main's thread. Compiling a 100 000-task graph and setting up its
 * scheduler take seconds of CPU; as one synchronous call they would stall `serve`'s and the app's
 * event loop (HTTP, WebSocket, IPC, worker messages) for all of it (defect D8). So that work is
 * written as generators that `yield` every few hundred items, and a driver runs them either to the
 * end at once (`runToEnd`: the synchronous APIs tests and tools use) or in slices of a few ms with
 * a `setImmediate` between slices (`runInSlices`: runs started by serve, the app and the CLI).
 *
 * Why not a worker_thread: the task graph is plain objects (nested chunk-program expressions), and
 * moving it back to main costs more than building it — structured clone of a 115k-task graph took
 * ~4 s to deserialize and JSON.parse ~1.4 s, both on main's thread, against ~1.9 s to compile it.
 */

/** Work that yields (nothing) from time to time and returns `T` at the end. */
export type Steps<T> = Generator<void, T, void>;

/**
 * The longest stretch a slice runs before giving the loop back. Small enough that a 5x slower or
 * busier machine still stays far under the 100 ms target; large enough that the setImmediate
 * between slices costs nothing measurable.
 */
export const SLICE_MS = 8;

/** Yield once per this many items in tight loops (a few hundred µs of work here). */
export const YIELD_EVERY = 256;

export function isSteps<T>(x: unknown): x is Steps<T> {
  return typeof x === 'object' && x !== null && typeof (x as { next?: unknown }).next === 'function' && typeof (x as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}

/** Runs the work synchronously to its end. */
export function runToEnd<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Work given up because its `signal` aborted (e.g. serve's client went away mid-compile). */
export class WorkAborted extends Error {
  override name = 'WorkAborted';
}

/**
 * Runs the work in slices of about `sliceMs`, letting the event loop run between them. The first
 * slice starts at once, so small work finishes without ever yielding to the loop. When `signal`
 * aborts, the work stops at its next slice boundary (its generator is closed) and the promise
 * rejects with WorkAborted: a compile nobody waits for any more stops using main's thread.
 */
export async function runInSlices<T>(steps: Steps<T>, sliceMs = SLICE_MS, signal?: AbortSignal): Promise<T> {
  let until = performance.now() + sliceMs;
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() >= until) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (signal?.aborted) {
        steps.return(undefined as never);
        throw new WorkAborted(typeof signal.reason === 'string' ? signal.reason : 'aborted');
      }
      until = performance.now() + sliceMs;
    }
  }
}
