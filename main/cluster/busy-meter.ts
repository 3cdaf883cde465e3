/**
 * How busy a worker was between two samples, from its task activity: the time-weighted share of
 * its task slots in use (a worker running 1 of 2 slots for the whole window is 0.5 busy). This is
 * the utilisation shown for workers without a GPU counter (CPU and virtual GPU workers). Times are
 * passed in, so the arithmetic is testable without a clock.
 */
export class BusyMeter {
  private running = 0;
  private since: number;
  private busy = 0;
  private windowStart: number;

  constructor(
    /** Task slots of the worker (its concurrency). */
    private readonly slots: number,
    start: number,
  ) {
    if (!(slots >= 1)) throw new RangeError(`slots must be at least 1, got ${slots}`);
    this.since = start;
    this.windowStart = start;
  }

  private advance(t: number): void {
    if (t > this.since) this.busy += (Math.min(this.running, this.slots) / this.slots) * (t - this.since);
    this.since = Math.max(this.since, t);
  }

  /** The number of tasks running on the worker changed at time `t`. */
  setRunning(t: number, running: number): void {
    this.advance(t);
    this.running = Math.max(0, running);
  }

  /** Busy fraction (0..1) since the previous take (or the start), and a new window begins at `t`. */
  take(t: number): number {
    this.advance(t);
    const span = t - this.windowStart;
    const frac = span > 0 ? this.busy / span : 0;
    this.busy = 0;
    this.windowStart = Math.max(this.windowStart, t);
    return Math.min(1, Math.max(0, frac));
  }
}
