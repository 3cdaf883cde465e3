/**
 * The async shell around one run's Scheduler: it turns instructions into worker messages, worker
 * messages and pool changes into stimuli, every change into events on the bus, and, at the end,
 * fetches the outputs from the workers that hold them. Task keys are prefixed with the run id on
 * the wire so concurrent runs share workers safely.
 */
import type { ChunkValue } from '../../common/arrays';
import type { FromWorker } from '../../common/messages';
import type { ResultValue, RunResult, WorkerStat } from '../../common/results';
import type { NodeOutput, TaskGraph } from '../../common/tasks';
import type { WorkerPool } from '../cluster/pool';
import type { WorkerHandle } from '../cluster/worker-handle';
import type { EventBus } from './event-bus';
import { summaryFromBundle } from './compile/summary-lower';
import { assembleArray } from './results';
import { tableResult } from './table-result';
import { Scheduler, type Instruction, type Stimulus } from './scheduler/scheduler';
import { runInSlices, type Steps } from './slices';

/** Tasks placed on a worker at once: what it runs concurrently plus one queued, so it can fetch
 * the next task's inputs while computing. */
const slotsOf = (w: WorkerHandle) => w.config.concurrency + 1;
const FETCH_RETRY_MS = 500;

export class RunController {
  /** Set by `start` once built (in slices: main/engine/slices.ts). */
  private scheduler!: Scheduler;
  private readonly setup: Steps<void>;
  /** Stimuli that arrive while `start` is still setting up (null once started), applied in order after it. */
  private backlog: Array<{ s: Stimulus; cause?: number }> | null = [];
  private readonly stats = new Map<string, WorkerStat>();
  private transfers = { count: 0, bytes: 0 };
  private readonly t0 = Date.now();
  private readonly unlisten: () => void;
  private settle!: (r: RunResult) => void;
  readonly result: Promise<RunResult>;
  private pendingFetch = new Map<number, (v: { value: ChunkValue | null; error?: string }) => void>();
  private static nextRequest = 1;
  private restartsAtStart: number;
  private lastProgress = 0;

  constructor(
    readonly runId: string,
    private readonly graph: TaskGraph,
    private readonly pool: WorkerPool,
    private readonly bus: EventBus,
  ) {
    this.setup = this.build(Scheduler.create(graph.tasks, graph.outputs));
    this.result = new Promise((r) => (this.settle = r));
    this.restartsAtStart = [...pool.restarts.values()].reduce((a, b) => a + b, 0);
    this.unlisten = pool.listen({
      message: (w, msg) => this.onWorkerMessage(w, msg),
      up: (w) => this.stimulus({ type: 'worker-added', id: w.id, kind: w.config.kind, slots: slotsOf(w) }),
      down: (w, end) => this.stimulus({ type: 'worker-removed', id: w.id, reason: end.reason }),
      gone: (w, reason) => this.stimulus({ type: 'worker-removed', id: w.id, reason, gone: true }),
    });
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
    for (const w of this.pool.ready) {
      this.stat(w);
      this.apply(this.scheduler.handle({ type: 'worker-added', id: w.id, kind: w.config.kind, slots: slotsOf(w) }, started.seq));
    }
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
    return `${this.runId}:${key}`;
  }

  private unwire(key: string): string | null {
    const p = `${this.runId}:`;
    return key.startsWith(p) ? key.slice(p.length) : null;
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
        f({ value: msg.value, error: msg.error });
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
      const ev = this.bus.emit({ type: 'task', runId: this.runId, key, node: def.node, op: def.op, worker: w.id, start: msg.startedAt, end: msg.endedAt, bytes: msg.bytes, backend: msg.backend, cause: this.bus.lastSeq });
      for (const tr of msg.transfers) {
        this.transfers.count++;
        this.transfers.bytes += tr.bytes;
        this.bus.emit({ type: 'transfer', runId: this.runId, key: this.unwire(tr.key) ?? tr.key, from: tr.from, to: w.id, bytes: tr.bytes, start: msg.startedAt - tr.ms, end: msg.startedAt, cause: ev.seq });
      }
      this.stimulus({ type: 'task-finished', key, worker: w.id, bytes: msg.bytes }, ev.seq);
    } else {
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
          const def = this.graph.tasks.get(ins.key)!;
          const deps = ins.deps.map((d) => {
            if (d.holder === null) return { key: this.wire(d.key), at: null };
            const h = this.pool.workers.get(d.holder);
            return { key: this.wire(d.key), at: h?.address ?? null };
          });
          this.pool.send(ins.worker, { type: 'execute', runId: this.runId, key: this.wire(ins.key), node: def.node, op: def.op, spec: def.spec, deps });
          break;
        }
        case 'release':
          this.pool.send(ins.worker, { type: 'release', keys: ins.keys.map((k) => this.wire(k)) });
          break;
        case 'state':
          this.bus.emit({ type: 'task-state', runId: this.runId, key: ins.key, node: ins.node, from: ins.from, to: ins.to, worker: ins.worker, cause: ins.cause });
          if (ins.to === 'memory') this.progress();
          break;
        case 'finished':
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
    const holders = this.scheduler.holdersOf(key);
    const w = holders.map((h) => this.pool.workers.get(h)).find((x) => x?.alive);
    if (!w) return Promise.reject(new Error(`no live worker holds ${key}`));
    const requestId = RunController.nextRequest++;
    return new Promise((resolve, reject) => {
      this.pendingFetch.set(requestId, ({ value, error }) => (value ? resolve(value) : reject(new Error(error ?? `fetch of ${key} failed`))));
      w.send({ type: 'fetch', requestId, key: this.wire(key) });
    });
  }

  private async outputValue(out: NodeOutput): Promise<ResultValue> {
    if (out.kind === 'scalar') {
      const v = await this.fetch(out.key);
      if (v.kind !== 'array') throw new Error(`output ${out.key} is a ${v.kind}, expected a value`);
      const x = v.array.data[0];
      return { kind: 'scalar', dtype: out.dtype, value: typeof x === 'bigint' ? Number(x) : x };
    }
    if (out.kind === 'array') {
      const blocks = await Promise.all(out.keys.map((k) => this.fetch(k)));
      return assembleArray(out, blocks);
    }
    if (out.kind === 'table') return tableResult(out, await Promise.all(out.keys.map((k) => this.fetch(k))));
    if (out.kind === 'values') return { kind: 'json', value: (await Promise.all(out.keys.map((k) => this.fetch(k)))).map((v) => (v.kind === 'json' ? v.value : { kind: v.kind })) };
    const v = await this.fetch(out.key);
    if (out.kind === 'array-summary') {
      if (v.kind !== 'arrays') throw new Error(`output ${out.key} is a ${v.kind}, expected a summary bundle`);
      return { kind: 'array', dtype: out.dtype, shape: out.shape, summary: summaryFromBundle(v.arrays) };
    }
    return v.kind === 'json' ? { kind: 'json', value: v.value } : { kind: 'json', value: { kind: v.kind } };
  }

  private async complete(): Promise<void> {
    this.progress(true);
    const results: Record<string, ResultValue> = {};
    try {
      for (const [name, out] of Object.entries(this.graph.outputs)) results[name] = await this.outputValue(out);
    } catch (e) {
      return this.end('failed', results, `collecting results: ${e instanceof Error ? e.message : String(e)}`);
    }
    return this.end('finished', results);
  }

  private async end(status: RunResult['status'], results: Record<string, ResultValue>, error?: string, node?: string): Promise<void> {
    this.unlisten();
    for (const [worker, keys] of (this.backlog === null ? this.scheduler.heldByWorker() : new Map<string, string[]>())) this.pool.send(worker, { type: 'release', keys: keys.map((k) => this.wire(k)) });
    const restarts = [...this.pool.restarts.values()].reduce((a, b) => a + b, 0) - this.restartsAtStart;
    this.bus.emit({ type: 'run', runId: this.runId, state: status, error });
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
        restarts,
      },
    });
  }
}
