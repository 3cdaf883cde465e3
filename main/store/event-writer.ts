/**
 * Buffers task events in memory and writes them in one transaction every `flushMs` and on
 * close(), so the scheduler's hot path only pushes onto an array.
 *
 * The timer is unref'd (it never keeps a process alive): call close() before exiting, or the
 * last interval's events are lost. A failed flush (disk full, lock held too long) keeps its
 * events for the next try and reports through onError; past `maxBuffered` pending events the
 * oldest are dropped and counted in `dropped`, so a full disk cannot exhaust memory.
 */
import type { EventInput } from '../../common/store-types';

export interface EventSink {
  appendEvents(batches: Iterable<[number, readonly EventInput[]]>): void;
}

export interface EventWriterOptions {
  /** Flush interval, ms. */
  flushMs?: number;
  maxBuffered?: number;
  /** Called with a failed flush's error; the default logs it. */
  onError?: (err: unknown) => void;
}

export const DEFAULT_FLUSH_MS = 250;
export const DEFAULT_MAX_BUFFERED = 1_000_000;

export class EventWriter {
  private buffer = new Map<number, EventInput[]>();
  private count = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Events dropped because the buffer overflowed while flushes failed. */
  dropped = 0;
  private readonly flushMs: number;
  private readonly maxBuffered: number;
  private readonly onError: (err: unknown) => void;

  constructor(private readonly sink: EventSink, options: EventWriterOptions = {}) {
    this.flushMs = options.flushMs ?? DEFAULT_FLUSH_MS;
    this.maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
    this.onError = options.onError ?? ((err) => console.error(`[store] event flush failed: ${err instanceof Error ? err.message : String(err)}`));
  }

  /** Events waiting to be written. */
  get pending(): number {
    return this.count;
  }

  push(runId: number, event: EventInput): void {
    if (this.closed) throw new Error('EventWriter: push after close');
    let list = this.buffer.get(runId);
    if (!list) this.buffer.set(runId, (list = []));
    list.push(event);
    this.count++;
    if (this.count > this.maxBuffered) this.dropOldest();
    if (!this.timer) {
      this.timer = setTimeout(() => this.onTimer(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes everything pending now, in one transaction. Throws what the store throws. */
  flush(): number {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.count === 0) return 0;
    const batch = this.buffer;
    const n = this.count;
    this.buffer = new Map();
    this.count = 0;
    try {
      this.sink.appendEvents(batch);
    } catch (err) {
      this.restore(batch, n);
      throw err;
    }
    return n;
  }

  /** Flushes and stops. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
  }

  private onTimer(): void {
    this.timer = undefined;
    try {
      this.flush();
    } catch (err) {
      this.onError(err);
      if (!this.timer && this.count > 0) {
        this.timer = setTimeout(() => this.onTimer(), this.flushMs);
        this.timer.unref();
      }
    }
  }

  /** Puts a failed batch back in front of anything pushed since, keeping per-run order. */
  private restore(batch: Map<number, EventInput[]>, n: number): void {
    for (const [runId, newer] of this.buffer) {
      const older = batch.get(runId);
      if (older) older.push(...newer);
      else batch.set(runId, newer);
    }
    this.count += n;
    this.buffer = batch;
    while (this.count > this.maxBuffered) this.dropOldest();
  }

  private dropOldest(): void {
    for (const [runId, list] of this.buffer) {
      list.shift();
      if (list.length === 0) this.buffer.delete(runId);
      this.count--;
      this.dropped++;
      return;
    }
  }
}
