/**
 * Buffers task events in memory and writes them in one transaction every `flushMs` and on
 * close(), so the scheduler's hot path only pushes onto an array.
 *
 * The timer is unref'd (it never keeps a process alive): call close() before exiting, or the
 * last interval's events are lost. A failed flush (disk full, lock held too long) keeps its batch
 * for retry and reports through onError. What is kept is bounded: at most `maxFailedBatches`
 * failed batches (the oldest is dropped past that) and `maxBuffered` pending events in all, so a
 * full disk cannot exhaust memory. Dropped events are never silent: they are counted per run
 * (`settleRun` hands a run's count and the last write error to whoever records the run's end).
 */
import type { EventInput } from '../../common/store-types';

export interface EventSink {
  appendEvents(batches: Iterable<[number, readonly EventInput[]]>): void;
}

export interface EventWriterOptions {
  /** Flush interval, ms. */
  flushMs?: number;
  maxBuffered?: number;
  /** Failed batches kept for retry; past this the oldest failed batch is dropped. */
  maxFailedBatches?: number;
  /** Called with a failed flush's error; the default logs it. */
  onError?: (err: unknown) => void;
}

/** What became of a run's events that could not be written (EventWriter.settleRun). */
export interface EventLoss {
  /** Events of the run that were dropped, never written. */
  dropped: number;
  /** The last write error, when a write failed. */
  error: unknown;
}

export const DEFAULT_FLUSH_MS = 250;
export const DEFAULT_MAX_BUFFERED = 1_000_000;
export const DEFAULT_MAX_FAILED_BATCHES = 16;

type Batch = Map<number, EventInput[]>;

export class EventWriter {
  /** Events pushed since the last flush. */
  private buffer: Batch = new Map();
  /** Batches whose write failed, oldest first, written before `buffer` on the next flush. */
  private failed: Batch[] = [];
  private count = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Events dropped (buffer overflow or too many failed batches), in all. */
  dropped = 0;
  private readonly droppedByRun = new Map<number, number>();
  /** The last failed write's error (cleared by a successful write). */
  lastError: unknown = undefined;
  /** The error behind the latest drop (kept after a later write succeeded). */
  private dropError: unknown = undefined;
  private readonly flushMs: number;
  private readonly maxBuffered: number;
  private readonly maxFailedBatches: number;
  private readonly onError: (err: unknown) => void;

  constructor(
    private readonly sink: EventSink,
    options: EventWriterOptions = {},
  ) {
    this.flushMs = options.flushMs ?? DEFAULT_FLUSH_MS;
    this.maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
    this.maxFailedBatches = Math.max(0, options.maxFailedBatches ?? DEFAULT_MAX_FAILED_BATCHES);
    this.onError = options.onError ?? ((err) => console.error(`[store] event flush failed: ${err instanceof Error ? err.message : String(err)}`));
  }

  /** Events waiting to be written (failed batches included). */
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
    this.arm();
  }

  /** Writes everything pending now (failed batches first), in one transaction. Throws what the store throws. */
  flush(): number {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.count === 0) return 0;
    const batches = this.buffer.size > 0 ? [...this.failed, this.buffer] : [...this.failed];
    const n = this.count;
    this.buffer = new Map();
    this.failed = [];
    this.count = 0;
    try {
      this.sink.appendEvents(entries(batches));
    } catch (err) {
      this.lastError = err;
      this.failed = batches;
      this.count = n;
      while (this.failed.length > this.maxFailedBatches) this.dropBatch(this.failed.shift()!);
      throw err;
    }
    this.lastError = undefined;
    return n;
  }

  /**
   * Called when run `runId` has ended and will push no more: tries once more to write, drops what
   * of this run still cannot be written, and returns how many of its events were dropped in all
   * (then forgets the count) with the last write error.
   */
  settleRun(runId: number): EventLoss {
    let error: unknown = undefined;
    try {
      this.flush();
    } catch (err) {
      error = err;
      for (const b of [...this.failed, this.buffer]) {
        const list = b.get(runId);
        if (!list) continue;
        b.delete(runId);
        this.count -= list.length;
        this.countDropped(runId, list.length);
      }
      this.failed = this.failed.filter((b) => b.size > 0);
      this.arm();
    }
    const dropped = this.droppedByRun.get(runId) ?? 0;
    this.droppedByRun.delete(runId);
    return { dropped, error: dropped > 0 ? (error ?? this.lastError ?? this.dropError) : undefined };
  }

  /** Flushes and stops. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
  }

  private arm(): void {
    if (!this.timer && this.count > 0 && !this.closed) {
      this.timer = setTimeout(() => this.onTimer(), this.flushMs);
      this.timer.unref();
    }
  }

  private onTimer(): void {
    this.timer = undefined;
    try {
      this.flush();
    } catch (err) {
      this.onError(err);
      this.arm();
    }
  }

  private countDropped(runId: number, n: number): void {
    if (n <= 0) return;
    this.dropped += n;
    this.droppedByRun.set(runId, (this.droppedByRun.get(runId) ?? 0) + n);
    this.dropError = this.lastError ?? this.dropError;
  }

  private dropBatch(b: Batch): void {
    for (const [runId, list] of b) {
      this.count -= list.length;
      this.countDropped(runId, list.length);
    }
  }

  /** Drops the oldest pending event (failed batches are older than the buffer). */
  private dropOldest(): void {
    while (this.failed.length > 0 && this.failed[0].size === 0) this.failed.shift();
    const b = this.failed[0] ?? this.buffer;
    for (const [runId, list] of b) {
      list.shift();
      if (list.length === 0) b.delete(runId);
      this.count--;
      this.countDropped(runId, 1);
      return;
    }
  }
}

function* entries(batches: readonly Batch[]): Generator<[number, readonly EventInput[]]> {
  for (const b of batches) yield* b;
}
