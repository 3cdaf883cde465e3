/**
 * The async shell around one run's Scheduler: it turns instructions into worker messages, worker
 * messages and pool changes into stimuli, every change into events on the bus, and, at the end,
 * fetches the outputs from the workers that hold them. Task keys are prefixed on the wire with a
 * short tag of this controller (`r12:`, unique in the process), so concurrent runs share workers
 * safely; not the run's 36-character id, which every execute, done and release carried, a
 * seventh of a chunk task's bytes each way.
 *
 * With a result cache (cache/result-cache.ts): `reuse` starts tasks whose digest the cache holds
 * in memory on their holder (read under the key they were made under), `retain` offers each
 * output the run is done with to the cache instead of releasing it. Outputs the cache keeps are
 * never released by the run; cached entries the run reads are pinned until it ends.
 */
import { traceStart } from '../../common/start-trace';
import type { ChunkValue } from '../../common/arrays';
import type { FromWorker } from '../../common/messages';
import type { ResultValue, RunResult, WorkerStat } from '../../common/results';
import type { TaskGraph } from '../../common/tasks';
import type { WorkerPool } from '../cluster/pool';
import type { GpuSharing } from '../cluster/plan';
import { endedByItself, type WorkerHandle } from '../cluster/worker-handle';
import type { EventBus } from './event-bus';
import { outputValue } from './outputs';
import { Scheduler, type Instruction, type Stimulus } from './scheduler/scheduler';
import { runInSlices, type Steps } from './slices';
import type { ResultCache } from './cache/result-cache';
import { taskDigestSteps } from './cache/task-digests';

export interface CacheUse {
  cache: ResultCache;
  /** Start tasks the cache holds as already computed. */
  reuse: boolean;
  /** Offer outputs the run no longer needs to the cache. */
  retain: boolean;
}

/**
 * Tasks placed on a worker at once: what it runs concurrently and as many again queued (at least
 * one), so it fetches the next tasks' inputs while computing and starts the next task the moment
 * one ends, without a round trip through main. With one queued task a GPU worker (16 kernels in
 * flight, 0.3 ms each) went idle whenever 16 `done` messages and the 16 `execute`s they freed
 * crossed main together. Dask does the same (a worker's ready queue beyond its threads).
 * (Four times on a GPU worker would hold about 8 ms of the shortest seed kernels, against pauses
 * of main's loop, but also triple the inputs queued tasks fetch ahead; it made no difference
 * measurable on bench/engine/overhead.ts here, so it waits for a measurement on the GPU.)
 */
const slotsOf = (w: WorkerHandle) => 2 * w.config.concurrency;
const FETCH_RETRY_MS = 500;

export class RunController {
  /** Set by `start` once built (in slices: main/engine/slices.ts). */
  private scheduler!: Scheduler;
  private readonly setup: Steps<void>;
  /** Stimuli that arrive while `start` is still setting up (null once started), applied in order after it. */
  private backlog: Array<{ s: Stimulus; cause?: number }> | null = [];
  private readonly stats = new Map<string, WorkerStat>();
  private transfers = { count: 0, bytes: 0, ipc: { count: 0, bytes: 0 }, host: { count: 0, bytes: 0 }, hostReasons: {} as Record<string, number> };
  /** Host <-> device traffic of the tasks that ran on device-resident data (worker/resident/). */
  private device = { tasks: 0, reusedInputs: 0, reusedBytes: 0, uploadedBytes: 0, keptBytes: 0 };
  private readonly t0 = Date.now();
  private readonly unlisten: () => void;
  private settle!: (r: RunResult) => void;
  readonly result: Promise<RunResult>;
  private pendingFetch = new Map<number, { worker: string; answer: (v: { value: ChunkValue | null; error?: string }) => void }>();
  private static nextRequest = 1;
  private static nextTag = 1;
  private readonly wirePrefix = `r${RunController.nextTag++}:`;
  private restartsAtStart: number;
  private lastProgress = 0;
  /** Whether a task was sent yet (the start-up trace's first dispatch). */
  private dispatched = false;
  /** Digest per task (only with a cache). */
  private digests: Map<string, string | null> | null = null;
  /** Cache entries this run pinned (task -> digest): read by it, so never evicted under it. */
  private readonly pins = new Map<string, string>();
  /** Tasks read from the cache: the key their holder keeps them under. */
  private readonly cachedWire = new Map<string, string>();
  private readonly cachedKeyOf = new Map<string, string>();
  /** Output bytes and holder process of each task this run computed (for offering to the cache). */
  private readonly made = new Map<string, { bytes: number; pid: number }>();
  private reused: { tasks: number; nodes: string[] } = { tasks: 0, nodes: [] };
  /**
   * Small outputs that came with their `done` (common/messages.ts INLINE_VALUE_BYTES), kept while
   * their task's output is held: sent inline to a task on another worker and read as the run's
   * results, so no peer fetch or `fetch` round trip waits for them. GPUFLOW_INLINE_VALUES=0 turns
   * it off (A/B runs: bench/engine/fixed-cost.ts).
   */
  private readonly inline: Map<string, ChunkValue> | null = process.env.GPUFLOW_INLINE_VALUES === '0' ? null : new Map();

  constructor(
    readonly runId: string,
    private readonly graph: TaskGraph,
    private readonly pool: WorkerPool,
    private readonly bus: EventBus,
    private readonly cacheUse: CacheUse | null = null,
    /** GPU workers per GPU with those the pool lent this run (Engine.run's `lent`); without, it never sees them. */
    private readonly lent?: GpuSharing,
  ) {
    this.setup = this.prepare();
    traceStart('run-start');
    this.result = new Promise((r) => (this.settle = (res) => (traceStart('run-end'), r(res))));
    this.restartsAtStart = [...pool.restarts.values()].reduce((a, b) => a + b, 0);
    const mine = (w: WorkerHandle) => this.mine(w.id);
    this.unlisten = pool.listen({
      message: (w, msg) => mine(w) && this.onWorkerMessage(w, msg),
      up: (w) => mine(w) && this.stimulus({ type: 'worker-added', id: w.id, kind: w.config.kind, slots: slotsOf(w) }),
      down: (w, end) => {
        if (!mine(w)) return;
        this.failFetches(w.id, end.reason);
        this.stimulus({ type: 'worker-removed', id: w.id, reason: end.reason, fault: endedByItself(end) });
      },
      gone: (w, reason) => {
        if (!mine(w)) return;
        this.failFetches(w.id, reason);
        this.stimulus({ type: 'worker-removed', id: w.id, reason, gone: true });
      },
    });
  }

  /** Whether this run may use worker `id`: any but a lent GPU worker, which only a run it was lent to. */
  private mine(id: string): boolean {
    return this.lent !== undefined || !this.pool.isLent(id);
  }

  /** The pool's ready workers this run may use. */
  private get ready(): WorkerHandle[] {
    return this.pool.ready.filter((w) => this.mine(w.id));
  }

  /**
   * Digests, cache look-ups (each hit pinned at once, so no other run's offer can evict it while
   * the scheduler is built in slices), then the scheduler, starting from the hits.
   */
  private *prepare(): Steps<void> {
    const preloaded = new Map<string, string>();
    const found = new Map<string, { wireKey: string; digest: string }>();
    const use = this.cacheUse;
    if (use) {
      this.digests = yield* taskDigestSteps(this.graph.tasks);
      const ready = new Set(this.ready.map((w) => w.id));
      if (use.reuse) {
        for (const [key, digest] of this.digests) {
          const hit = digest === null ? undefined : use.cache.lookup(digest);
          if (!hit || !ready.has(hit.worker)) continue;
          preloaded.set(key, hit.worker);
          found.set(key, { wireKey: hit.wireKey, digest: digest! });
          use.cache.pin(digest!);
          this.pins.set(key, digest!);
        }
      }
    }
    yield* this.build(Scheduler.create(this.graph.tasks, this.graph.outputs, Date.now, preloaded), () => {
      if (preloaded.size) this.noteReused(found);
    });
  }

  /** Keeps the pins of the cached outputs the run starts from, and counts what it will not compute. */
  private noteReused(found: Map<string, { wireKey: string; digest: string }>): void {
    const reused = this.scheduler.reusedTasks();
    const perNode = new Map<string, number>();
    const held = new Set<string>();
    for (const r of reused) {
      perNode.set(r.node, (perNode.get(r.node) ?? 0) + 1);
      const f = found.get(r.key);
      if (!r.held || !f) continue;
      held.add(r.key);
      this.cachedWire.set(r.key, f.wireKey);
      this.cachedKeyOf.set(f.wireKey, r.key);
    }
    // Hits the run does not read (what they feed is a hit too) need no pin.
    for (const key of [...this.pins.keys()]) if (!held.has(key)) this.unpin(key);
    const all = new Map<string, number>();
    for (const t of this.graph.tasks.values()) all.set(t.node, (all.get(t.node) ?? 0) + 1);
    this.reused = { tasks: reused.length, nodes: [...perNode].filter(([n, c]) => all.get(n) === c).map(([n]) => n).sort() };
  }

  /**
   * Builds the scheduler and starts the run in slices of a few ms, so that a 100 000-task graph
   * (about a second of setup) never stalls main's loop (defect D8); a small graph starts within
   * the first slice, at once. Pool changes and a cancel that arrive meanwhile wait in `backlog`.
   */
  start(): Promise<void> {
    return runInSlices(this.startSteps()).catch((e: unknown) => this.end('failed', {}, `starting the run: ${e instanceof Error ? e.message : String(e)}`));
  }

  private *build(create: Steps<Scheduler>, then?: () => void): Steps<void> {
    this.scheduler = yield* create;
    then?.();
  }

  private *startSteps(): Steps<void> {
    yield* this.setup;
    const started = this.bus.emit({ type: 'run', runId: this.runId, state: 'started', tasks: this.graph.tasks.size });
    if (this.reused.tasks > 0) this.bus.emit({ type: 'reused', runId: this.runId, tasks: this.reused.tasks, nodes: this.reused.nodes, cause: started.seq });
    for (const w of this.ready) {
      this.stat(w);
      this.apply(this.scheduler.handle({ type: 'worker-added', id: w.id, kind: w.config.kind, slots: slotsOf(w) }, started.seq));
    }
    // The pool's other workers: gone (given up, device lost) or restarting. Without them a run
    // started when no worker was ready waited forever; now it waits only for restarting ones,
    // and fails at once, naming why, when every worker is gone (issue 29 item 7).
    // Restarting ones first: the scheduler gives up as soon as it knows only gone workers.
    // A worker whose process is alive but not ready yet (a GPU worker still making its CUDA
    // context: `gpuflow run` starts once the first GPU worker is ready) keeps its grid place.
    const ready = new Set(this.ready.map((w) => w.id));
    const others = [...this.pool.workers.keys()].filter((id) => !ready.has(id) && this.mine(id));
    for (const id of others.filter((x) => !this.pool.gone.has(x))) {
      const w = this.pool.workers.get(id)!;
      const s: Stimulus = w.alive ? { type: 'worker-starting', id, kind: w.config.kind } : { type: 'worker-removed', id, reason: 'restarting' };
      this.apply(this.scheduler.handle(s, started.seq));
    }
    const gone = others.filter((x) => this.pool.gone.has(x)).map((id) => ({ id, reason: this.pool.gone.get(id)! }));
    if (gone.length) this.apply(this.scheduler.handle({ type: 'workers-gone', workers: gone }, started.seq));
    yield* this.scheduler.startSteps(started.seq, (batch) => this.apply(batch));
    const backlog = this.backlog ?? [];
    this.backlog = null;
    for (const b of backlog) this.stimulus(b.s, b.cause);
  }

  cancel(reason = 'cancelled by the user'): void {
    this.stimulus({ type: 'cancel', reason });
  }

  story(key: string) {
    return this.backlog === null ? this.scheduler.story(key) : [];
  }

  private wire(key: string): string {
    return this.cachedWire.get(key) ?? this.wirePrefix + key;
  }

  private unwire(key: string): string | null {
    const p = this.wirePrefix;
    return key.startsWith(p) ? key.slice(p.length) : (this.cachedKeyOf.get(key) ?? null);
  }

  /**
   * Keys the run may release: not those the cache holds (read from it, or kept when offered
   * now). Outputs computed by this run are offered when `retain` is on.
   */
  private releasable(worker: string, keys: string[]): string[] {
    if (!this.cacheUse) return keys;
    const { cache, retain } = this.cacheUse;
    return keys.filter((k) => {
      if (this.cachedWire.has(k)) return false;
      const digest = this.digests?.get(k) ?? null;
      const made = this.made.get(k);
      if (digest === null) return true;
      if (cache.owns(digest, worker, this.wire(k))) return false;
      if (!retain || !made) return true;
      return !cache.offer(digest, { worker, pid: made.pid, wireKey: this.wire(k), bytes: made.bytes });
    });
  }

  private stat(w: WorkerHandle): WorkerStat {
    let s = this.stats.get(w.id);
    if (!s) {
      s = { id: w.id, kind: w.config.kind, label: w.config.label, virtual: w.config.kind === 'virtual-gpu', tasks: 0, busyMs: 0, backends: {} };
      this.stats.set(w.id, s);
    }
    return s;
  }

  private stimulus(s: Stimulus, cause?: number): void {
    if (this.backlog !== null) {
      this.backlog.push({ s, cause });
      return;
    }
    const c = cause ?? this.bus.lastSeq;
    this.apply(this.scheduler.handle(s, c));
  }

  private onWorkerMessage(w: WorkerHandle, msg: FromWorker): void {
    if (msg.type === 'value') {
      const f = this.pendingFetch.get(msg.requestId);
      if (f) {
        this.pendingFetch.delete(msg.requestId);
        f.answer({ value: msg.value, error: msg.error });
      }
      return;
    }
    if (msg.type !== 'done' && msg.type !== 'error' && msg.type !== 'progress') return;
    const key = this.unwire(msg.key);
    if (key === null) return;
    const def = this.graph.tasks.get(key);
    if (!def) return;
    if (msg.type === 'progress') {
      this.bus.emit({ type: 'task-progress', runId: this.runId, key, node: def.node, worker: w.id, payload: msg.payload });
      return;
    }
    if (this.scheduler.isOver && msg.type === 'done') {
      // A task that finished after the run ended (cancel): its output is not wanted.
      w.send({ type: 'release', keys: [msg.key] });
      return;
    }
    if (msg.type === 'done') {
      const s = this.stat(w);
      s.tasks++;
      s.busyMs += msg.endedAt - msg.startedAt;
      s.backends[msg.backend] = (s.backends[msg.backend] ?? 0) + 1;
      if (this.cacheUse) this.made.set(key, { bytes: msg.bytes, pid: w.pid ?? -1 });
      if (msg.value && this.inline) this.inline.set(key, msg.value);
      const ev = this.bus.emit({ type: 'task', runId: this.runId, key, node: def.node, op: def.op, worker: w.id, start: msg.startedAt, end: msg.endedAt, bytes: msg.bytes, backend: msg.backend, ...(msg.device ? { device: msg.device } : {}), cause: this.bus.lastSeq });
      if (msg.device) {
        this.device.tasks++;
        this.device.reusedInputs += msg.device.reusedInputs;
        this.device.reusedBytes += msg.device.reusedBytes;
        this.device.uploadedBytes += msg.device.uploadedBytes;
        this.device.keptBytes += msg.device.keptBytes;
      }
      for (const tr of msg.transfers) {
        this.transfers.count++;
        this.transfers.bytes += tr.bytes;
        const via = this.transfers[tr.via ?? 'host'];
        via.count++;
        via.bytes += tr.bytes;
        if (tr.via !== 'ipc') countReason(this.transfers.hostReasons, tr.reason ?? 'not recorded');
        this.bus.emit({ type: 'transfer', runId: this.runId, key: this.unwire(tr.key) ?? tr.key, from: tr.from, to: w.id, bytes: tr.bytes, start: msg.startedAt - tr.ms, end: msg.startedAt, cause: ev.seq, ...(tr.via ? { via: tr.via } : {}) });
      }
      this.stimulus({ type: 'task-finished', key, worker: w.id, bytes: msg.bytes }, ev.seq);
    } else {
      if (msg.code === 'memory' && this.cacheUse) {
        // Refused for memory on a worker where the result cache keeps outputs: the cache gives
        // way (it must never cost a run its memory) and the task runs again.
        const freed = this.cacheUse.cache.freeWorker(w.id);
        if (freed > 0) {
          const ev = this.bus.emit({ type: 'log', level: 'info', message: `run ${this.runId}: ${key} needed memory on ${w.id}; released ${freed} bytes of cached results there and retried` });
          this.stimulus({ type: 'task-erred', key, worker: w.id, message: msg.message, code: msg.code, retry: true }, ev.seq);
          return;
        }
      }
      const ev = this.bus.emit({ type: 'task-error', runId: this.runId, key, node: def.node, worker: w.id, message: msg.message, code: msg.code, cause: this.bus.lastSeq });
      const erred: Stimulus = { type: 'task-erred', key, worker: w.id, message: msg.message, code: msg.code };
      // A lost input usually means its holder just died: give the pool a moment to notice, so
      // the retry waits for the input to be recomputed rather than asking the dead peer again.
      if (msg.code === 'fetch') setTimeout(() => this.stimulus(erred, ev.seq), FETCH_RETRY_MS);
      else this.stimulus(erred, ev.seq);
    }
  }

  private apply(instructions: Instruction[]): void {
    for (const ins of instructions) {
      switch (ins.type) {
        case 'execute': {
          if (!this.dispatched) traceStart('run-first-execute');
          this.dispatched = true;
          const def = this.graph.tasks.get(ins.key)!;
          const deps = ins.deps.map((d) => {
            if (d.holder === null) return { key: this.wire(d.key), at: null };
            const h = this.pool.workers.get(d.holder);
            const value = this.inline?.get(d.key);
            return { key: this.wire(d.key), at: h?.address ?? null, ...(value ? { value } : {}) };
          });
          this.pool.send(ins.worker, { type: 'execute', runId: this.runId, key: this.wire(ins.key), node: def.node, op: def.op, spec: def.spec, deps });
          break;
        }
        case 'release': {
          // Released by its last holder: nothing will read it again (a copy's release keeps it).
          if (this.inline) for (const k of ins.keys) if (this.scheduler.holdersOf(k).length === 0) this.inline.delete(k);
          const keys = this.releasable(ins.worker, ins.keys);
          if (keys.length) this.pool.send(ins.worker, { type: 'release', keys: keys.map((k) => this.wire(k)) });
          break;
        }
        case 'state':
          // A cached input whose holder died is recomputed by this run, under this run's key.
          if (ins.from === 'memory' && ins.to === 'waiting' && this.cachedWire.has(ins.key)) this.forgetCached(ins.key);
          this.bus.emit({ type: 'task-state', runId: this.runId, key: ins.key, node: ins.node, from: ins.from, to: ins.to, worker: ins.worker, cause: ins.cause });
          if (ins.to === 'memory') this.progress();
          break;
        case 'finished':
          traceStart('run-tasks-done');
          void this.complete();
          break;
        case 'failed':
          void this.end(ins.cancelled ? 'cancelled' : 'failed', {}, ins.error, ins.node);
          break;
      }
    }
  }

  private progress(force = false): void {
    const now = Date.now();
    if (!force && now - this.lastProgress < 100) return;
    this.lastProgress = now;
    const c = this.scheduler.counts();
    this.bus.emit({ type: 'progress', runId: this.runId, done: c.done, total: c.total, byNode: c.byNode });
  }

  private fetch(key: string): Promise<ChunkValue> {
    const inline = this.inline?.get(key);
    if (inline) return Promise.resolve(inline);
    // Only a ready worker is asked: a restarted one under the holder's id (alive, not yet ready)
    // holds nothing and may not have its store yet; a fetch there may never be answered, and a
    // run whose tasks had all finished would wait for it (issue 29 item 7).
    const ready = new Set(this.pool.ready);
    const w = this.scheduler.holdersOf(key).map((h) => this.pool.workers.get(h)).find((x) => x !== undefined && ready.has(x));
    if (!w) return Promise.reject(new Error(`no live worker holds ${key}`));
    const requestId = RunController.nextRequest++;
    return new Promise((resolve, reject) => {
      this.pendingFetch.set(requestId, { worker: w.id, answer: ({ value, error }) => (value ? resolve(value) : reject(new Error(error ?? `fetch of ${key} failed`))) });
      w.send({ type: 'fetch', requestId, key: this.wire(key) });
    });
  }

  /** A result fetch from a worker that went down is answered now (it never will be otherwise). */
  private failFetches(worker: string, reason: string): void {
    for (const [id, f] of [...this.pendingFetch]) {
      if (f.worker !== worker) continue;
      this.pendingFetch.delete(id);
      f.answer({ value: null, error: `worker ${worker} went down (${reason}) while its output was being collected` });
    }
  }

  /**
   * True when the run ended failing to collect an output it took from the result cache (its
   * holder died after the run had finished scheduling, which a run of only cached tasks does at
   * once): the engine runs it again without reuse (engine.ts).
   */
  lostCachedOutput = false;

  private async complete(): Promise<void> {
    this.progress(true);
    const results: Record<string, ResultValue> = {};
    try {
      for (const [name, out] of Object.entries(this.graph.outputs)) results[name] = await outputValue(out, (k) => this.fetch(k));
      traceStart('run-results-read');
    } catch (e) {
      this.lostCachedOutput = this.cachedWire.size > 0;
      return this.end('failed', results, `collecting results: ${e instanceof Error ? e.message : String(e)}`);
    }
    return this.end('finished', results);
  }

  private forgetCached(key: string): void {
    const wireKey = this.cachedWire.get(key)!;
    this.cachedWire.delete(key);
    this.cachedKeyOf.delete(wireKey);
    this.unpin(key);
  }

  private unpin(key: string): void {
    const d = this.pins.get(key);
    if (d === undefined) return;
    this.pins.delete(key);
    this.cacheUse?.cache.unpin(d);
  }

  private async end(status: RunResult['status'], results: Record<string, ResultValue>, error?: string, node?: string): Promise<void> {
    this.unlisten();
    this.inline?.clear();
    // Outputs are kept by the cache or released; what any run computed is valid whatever its end.
    for (const [worker, held] of (this.backlog === null ? this.scheduler.heldByWorker() : new Map<string, string[]>())) {
      const keys = this.releasable(worker, held);
      if (keys.length) this.pool.send(worker, { type: 'release', keys: keys.map((k) => this.wire(k)) });
    }
    for (const key of [...this.cachedWire.keys()]) this.forgetCached(key);
    for (const key of [...this.pins.keys()]) this.unpin(key);
    const restarts = [...this.pool.restarts.values()].reduce((a, b) => a + b, 0) - this.restartsAtStart;
    if (this.lostCachedOutput) this.bus.emit({ type: 'log', level: 'warn', message: `run ${this.runId}: ${error ?? 'an output'}; an output taken from the result cache was lost with its worker, running again without reuse` });
    else {
      // The counts as the run ends, before its end: progress is sent only as tasks finish (at most
      // every 100 ms), so a run cancelled or failed before any task finished had no bars to paint.
      if (status !== 'finished') this.progress(true);
      this.bus.emit({ type: 'run', runId: this.runId, state: status, error });
    }
    const leftOut = [...this.pool.gone].filter(([worker]) => this.mine(worker)).map(([worker, reason]) => ({ worker, reason }));
    const sharing = this.lent ?? this.pool.gpuSharing;
    this.settle({
      runId: this.runId,
      status,
      error,
      errorNode: node,
      results,
      stats: {
        tasks: this.graph.tasks.size,
        durationMs: Date.now() - this.t0,
        workers: [...this.stats.values()],
        transfers: this.transfers,
        ...(this.device.tasks > 0 ? { device: this.device } : {}),
        restarts,
        reused: this.reused,
        ...(leftOut.length > 0 ? { leftOut } : {}),
        ...(sharing ? { gpuWorkersPerDevice: sharing } : {}),
      },
    });
  }
}

/** Reasons are counted by their text; past 16 distinct ones the rest go under 'other'. */
function countReason(into: Record<string, number>, reason: string): void {
  const key = reason in into || Object.keys(into).length < 16 ? reason : 'other';
  into[key] = (into[key] ?? 0) + 1;
}
