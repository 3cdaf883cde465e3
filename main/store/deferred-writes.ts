/**
 * The store off main's loop (issue 29 item 9). better-sqlite3 is synchronous: with a 10 s busy
 * timeout, a write lock held by another process (a second gpuflow, `sqlite3`, a backup) stalled
 * serve's whole event loop, /api/devices included, for up to 10 s per write. So the process that
 * serves (serve, the app) waits at most LOOP_BUSY_TIMEOUT_MS per attempt, and a write that finds
 * the lock held is not lost: it waits here, in order, and is tried again every `retryMs` until
 * the lock is free. Event batches have their own retry (event-writer.ts); this is for the other
 * writes that must land, such as a run's end. At close, whatever still waits is written with the
 * long timeout (`drain`), the CLI's habit of waiting for the lock.
 */
import { StoreError } from './errors';

/** Longest main's loop waits for another process's lock in one write attempt, ms. */
export const LOOP_BUSY_TIMEOUT_MS = 50;
export const DEFAULT_RETRY_MS = 250;
/** Writes kept waiting at most; past it the write is refused (the lock has been held for ages). */
export const MAX_DEFERRED = 10_000;

export function isBusy(e: unknown): boolean {
  return e instanceof StoreError && e.code === 'busy';
}

export class DeferredWrites {
  private readonly queue: Array<{ what: string; write: () => void }> = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly onError: (what: string, e: unknown) => void,
    private readonly retryMs = DEFAULT_RETRY_MS,
  ) {}

  /** Writes waiting for the lock. */
  get pending(): number {
    return this.queue.length;
  }

  /**
   * Writes now, or, when another process holds the lock (or earlier writes still wait, so order
   * is kept), later. Errors other than a held lock are thrown as before.
   */
  write(what: string, fn: () => void): 'written' | 'deferred' {
    if (this.queue.length === 0) {
      try {
        fn();
        return 'written';
      } catch (e) {
        if (!isBusy(e)) throw e;
      }
    }
    if (this.queue.length >= MAX_DEFERRED) throw new Error(`${MAX_DEFERRED} store writes are waiting for a lock another process holds; ${what} was not saved`);
    this.queue.push({ what, write: fn });
    this.schedule();
    return 'deferred';
  }

  /** Tries every waiting write once, in order (at close, with the long busy timeout set). */
  drain(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.retry(false);
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.retry(true);
    }, this.retryMs);
    this.timer.unref();
  }

  private retry(again: boolean): void {
    while (this.queue.length) {
      const head = this.queue[0];
      try {
        head.write();
      } catch (e) {
        if (isBusy(e) && again) return this.schedule();
        this.onError(head.what, e);
      }
      this.queue.shift();
    }
  }
}
