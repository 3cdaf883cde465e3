/**
 * The result cache: task outputs kept after their run, by content digest (task-digests.ts), so a
 * later run whose tasks have the same digest reuses them instead of recomputing (ComfyUI's
 * per-node output cache, at task granularity).
 *
 * Where outputs live: on the workers that computed them, under the key they were computed under
 * (`<runId>:<task>`); the cache only remembers (digest -> worker, process id, wire key, bytes).
 * Why there and not in main: outputs are chunks of arrays and dataframes that can be large, the
 * next run needs them on a worker anyway (a dependent fetches them from the holder like any
 * input), and copying them to main and back would cost two transfers per reuse.
 *
 * Bounds: `budgetBytes` in all, and at most `workerShare` of any worker's memory limit (runs need
 * the rest). Admission evicts least-recently-used entries that no run is using (pinned); an
 * output that still does not fit is not kept (its run releases it as before).
 *
 * Correctness when a worker restarts: entries remember the holder's process id; an entry whose
 * worker went down, or came back as another process, is dropped (the pool's `down` listener, and
 * a check on every lookup). A run that was reusing such an entry sees the holder leave like any
 * lost output, and its scheduler recomputes it from its inputs.
 *
 * Example: run A computes x/block(0) (digest d1) on vgpu0; at its release the cache keeps
 * d1 -> (vgpu0, pid 41, "A:x/block(0)", 8 MB). Run B has a task with digest d1: it starts that
 * task in memory on vgpu0 and its dependents read "A:x/block(0)" from there; its upstream tasks
 * never run.
 */
import type { WorkerPool } from '../../cluster/pool';

export interface CacheOptions {
  /** Bytes of outputs kept in all (default 512 MiB). 0 turns the cache off. */
  budgetBytes?: number;
  /** Largest share of one worker's memory limit the cache may hold there (default 0.25). */
  workerShare?: number;
}

export interface CachedOutput {
  worker: string;
  /** The holder's process id when the output was made: another process there means it is gone. */
  pid: number;
  /** The key the worker holds it under. */
  wireKey: string;
  bytes: number;
}

interface Entry extends CachedOutput {
  digest: string;
  /** Runs using it now; a pinned entry is never evicted. */
  pins: number;
}

export interface CacheStats {
  entries: number;
  bytes: number;
  budgetBytes: number;
  hits: number;
  evictions: number;
}

const MiB = 1024 * 1024;

export class ResultCache {
  /** Map order is recency: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry>();
  private total = 0;
  private readonly perWorker = new Map<string, number>();
  private hits = 0;
  private evictions = 0;
  private budget: number;
  private readonly workerShare: number;

  constructor(
    private readonly pool: WorkerPool,
    opts: CacheOptions = {},
  ) {
    this.budget = opts.budgetBytes ?? 512 * MiB;
    this.workerShare = opts.workerShare ?? 0.25;
    pool.listen({ down: (w) => this.dropWorker(w.id) });
  }

  get budgetBytes(): number {
    return this.budget;
  }

  /** Changes the budget; a smaller one evicts least recently used, unpinned entries down to it. */
  setBudget(bytes: number): void {
    this.budget = Math.max(0, bytes);
    for (const e of [...this.entries.values()]) {
      if (this.total <= this.budget) break;
      if (e.pins === 0) this.remove(e, true);
    }
  }

  /** The live entry for `digest`, marked most recently used; undefined if none or its holder is gone. */
  lookup(digest: string): CachedOutput | undefined {
    const e = this.entries.get(digest);
    if (!e) return undefined;
    if (!this.holderAlive(e)) {
      this.remove(e, false);
      return undefined;
    }
    this.entries.delete(digest);
    this.entries.set(digest, e);
    this.hits++;
    return e;
  }

  pin(digest: string): void {
    const e = this.entries.get(digest);
    if (e) e.pins++;
  }

  unpin(digest: string): void {
    const e = this.entries.get(digest);
    if (e && e.pins > 0) e.pins--;
  }

  /** Whether the cache holds exactly this output (same worker and key): its owner must not release it. */
  owns(digest: string, worker: string, wireKey: string): boolean {
    const e = this.entries.get(digest);
    return e !== undefined && e.worker === worker && e.wireKey === wireKey;
  }

  /**
   * Offers an output its run no longer needs. True: the cache keeps it and the run must not
   * release it. False: not kept (already cached elsewhere, holder gone, or it does not fit).
   */
  offer(digest: string, out: CachedOutput): boolean {
    if (this.owns(digest, out.worker, out.wireKey)) return true;
    if (this.entries.has(digest) || this.budgetBytes <= 0) return false;
    const w = this.pool.workers.get(out.worker);
    if (!w || !w.alive || w.pid !== out.pid) return false;
    const workerCap = w.config.memoryLimit * this.workerShare;
    if (out.bytes > this.budgetBytes || out.bytes > workerCap) return false;
    const overTotal = () => this.total + out.bytes > this.budgetBytes;
    const overWorker = () => (this.perWorker.get(out.worker) ?? 0) + out.bytes > workerCap;
    // O(1) when it fits (runs offer every output they release); otherwise evict least recently
    // used, unpinned entries (Map order) until it does. Deleting the entry being visited is safe.
    if (overTotal() || overWorker()) {
      for (const e of this.entries.values()) {
        if (!overTotal() && !overWorker()) break;
        if (e.pins > 0) continue;
        if (overTotal() || e.worker === out.worker) this.remove(e, true);
      }
      if (overTotal() || overWorker()) return false;
    }
    this.entries.set(digest, { ...out, digest, pins: 0 });
    this.total += out.bytes;
    this.perWorker.set(out.worker, (this.perWorker.get(out.worker) ?? 0) + out.bytes);
    return true;
  }

  /** Releases every unpinned entry on a worker (it needs the memory for a run); returns the bytes freed. */
  freeWorker(id: string): number {
    let freed = 0;
    for (const e of [...this.entries.values()]) {
      if (e.worker !== id || e.pins > 0) continue;
      freed += e.bytes;
      this.remove(e, true);
    }
    return freed;
  }

  /** Forgets every entry held by a worker that went down (its outputs went with it). */
  dropWorker(id: string): void {
    for (const e of [...this.entries.values()]) if (e.worker === id) this.remove(e, false);
  }

  /** Releases every unpinned entry on the workers. */
  clear(): void {
    for (const e of [...this.entries.values()]) if (e.pins === 0) this.remove(e, true);
  }

  /** Bytes kept per worker. */
  bytesByWorker(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [w, n] of this.perWorker) if (n > 0) out[w] = n;
    return out;
  }

  stats(): CacheStats {
    return { entries: this.entries.size, bytes: this.total, budgetBytes: this.budgetBytes, hits: this.hits, evictions: this.evictions };
  }

  private holderAlive(e: Entry): boolean {
    const w = this.pool.workers.get(e.worker);
    return w !== undefined && w.alive && w.pid === e.pid;
  }

  private remove(e: Entry, release: boolean): void {
    this.entries.delete(e.digest);
    this.total -= e.bytes;
    this.perWorker.set(e.worker, (this.perWorker.get(e.worker) ?? 0) - e.bytes);
    if (release) {
      this.evictions++;
      if (this.holderAlive(e)) this.pool.send(e.worker, { type: 'release', keys: [e.wireKey] });
    }
  }
}
