/**
 * One compile budget for the whole process (issue 29 item 5): three concurrent validations of a
 * 1.1-million-task graph ran serve out of its 4 GB heap, since each held its own graph while
 * compiling. Compiles therefore run one at a time (a compile's memory is its graph, bounded by
 * MAX_TASKS, so one at a time bounds the total); up to MAX_WAITING more wait their turn in
 * order, and beyond that a request is refused at once with CompileBusy rather than piling up.
 * A waiting compile whose signal aborts (its client went away) leaves the line without running.
 */
import { WorkAborted } from '../slices';

export const MAX_CONCURRENT_COMPILES = 1;
export const MAX_WAITING_COMPILES = 8;

export class CompileBusy extends Error {
  override name = 'CompileBusy';
}

export class CompileGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrent = MAX_CONCURRENT_COMPILES,
    private readonly maxWaiting = MAX_WAITING_COMPILES,
  ) {}

  /** Compiles waiting for a turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `work` when a slot is free; rejects with CompileBusy when too many wait already. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.running >= this.concurrent) {
      if (this.waiting.length >= this.maxWaiting) {
        throw new CompileBusy(`serve is compiling ${this.running} workflow(s) with ${this.waiting.length} more waiting: try again when they are done`);
      }
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal?.removeEventListener('abort', leave);
          resolve();
        };
        const leave = () => {
          const i = this.waiting.indexOf(turn);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(new WorkAborted('the client went away while its compile waited'));
        };
        if (signal?.aborted) return leave();
        signal?.addEventListener('abort', leave, { once: true });
        this.waiting.push(turn);
      });
      // The slot of the compile that ended passed to this one (running was not decremented).
    } else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
