/**
 * Messages that wait for a tick and go out together (issue 27 item 8): a run emits thousands of
 * events a second, and one message each cost the page more to receive and parse than to draw.
 * `push` keeps a message; the batch goes out TICK_MS after the first one began to wait, at once
 * when it reaches `maxSize` (in the units of `sizeOf`), or when `flush` is called (a result ends a
 * run: it should not wait). Order is kept. Used by the WebSocket stream (event-stream.ts) and the
 * Electron window's IPC stream (ipc-handlers.ts).
 */

/** How long a message may wait for the ones after it: about two frames at 60 Hz. */
export const TICK_MS = 32;

export class Outbox<T> {
  private items: T[] = [];
  private size = 0;
  private tick: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly send: (batch: T[]) => void,
    private readonly maxSize: number,
    private readonly sizeOf: (m: T) => number = () => 1,
  ) {}

  push(m: T): void {
    this.items.push(m);
    this.size += this.sizeOf(m);
    if (this.size >= this.maxSize) this.flush();
    else this.tick ??= setTimeout(() => this.flush(), TICK_MS);
  }

  flush(): void {
    const batch = this.take();
    if (batch.length) this.send(batch);
  }

  /** Drops what waits (the peer is gone). */
  discard(): void {
    this.take();
  }

  private take(): T[] {
    if (this.tick) clearTimeout(this.tick);
    this.tick = null;
    const batch = this.items;
    this.items = [];
    this.size = 0;
    return batch;
  }
}
