/**
 * The one API every front end uses (CLI, serve's HTTP/WebSocket, Electron IPC): validate and run
 * workflows, stream events, and read history from the store. It owns the glue between the engine
 * and the store: a run's workflow version, its record, its events (buffered writer) and its
 * result digest.
 */
import { randomUUID } from 'node:crypto';
import type { BenchProgress, BenchResultMessage, DeviceInfo, ExampleInfo, RunResultMessage, WorkerInfo } from '../../common/api';
import type { EngineEvent } from '../../common/events';
import type { RunResult } from '../../common/results';
import type { WorkflowDoc } from '../../common/workflow';
import type { BenchmarkRecord, JsonValue, RunComparison, RunFilter, RunRecord, RunSummary, StoredEvent } from '../../common/store-types';
import type { Launcher } from '../cluster/launcher';
import type { PoolOptions } from '../cluster/pool';
import type { GpuSharing } from '../cluster/plan';
import { queryGpus } from '../cluster/discovery';
import { WorkerSampler } from '../cluster/worker-sampler';
import { nativeInfo } from '../../native';
import { ApiError } from './api-error';
import { plannedConfigs, runBenchmark } from './bench';
import { BenchProgressTracker } from './bench-progress';
import { runDigest, storedResults } from './run-record';
import { listExamples } from './examples';
import { QueueError, QueueFullError, RunQueue } from './run-queue';
import type { QueueEntry } from '../../common/events';
import { upstreamDoc } from '../engine/upstream';
import type { Compiled } from '../engine/compile/compile';
import type { EarlyCompile, Engine, RunHandle } from '../engine/engine';
import { WorkflowErrors } from '../engine/errors';
import { catalog } from '../engine/ops/registry';
import { validateWorkflow, type ValidWorkflow } from '../engine/validate';
// Not '../store': that loads SQLite, which a run without a store never needs.
import { localMachineInfo, machineFingerprint } from '../store/fingerprint';
import type { Store } from '../store/store';
import type { EventWriter } from '../store/event-writer';
import { shortReason } from '../store/errors';
import { compiledAs, compileWorkflow, compileWorkflowAsync } from '../engine/compile/compile';
import { planGpuSharing } from '../engine/gpu-sharing';
import { CompileBusy } from '../engine/compile/compile-gate';
import { WorkAborted } from '../engine/slices';
import { DaskTarget, type ClusterInfo, type ConnectOptions } from '../dask/target';
import { traceStart } from '../../common/start-trace';
import { firstRefusal } from '../dask/supported';
import { parseTarget } from '../dask/address';
import { DaskSetupError } from '../dask/interpreter';
import { ClusterTestGuard, unreachableMessage } from './cluster-test-guard';
import { getSetting, setSetting } from '../store/settings';
import { DeferredWrites, isBusy, LOOP_BUSY_TIMEOUT_MS } from '../store/deferred-writes';
import { BUSY_TIMEOUT_MS } from '../store/db';

export interface StartedRun {
  runId: string;
  /** The run's id in the store (history, replay), when a store is open. */
  storeId: number | null;
  handle: RunHandle;
  /** Resolves with the result once the store has its final record. */
  /**
   * Resolves with the result once the store has its final record — or, when that record cannot
   * be written (disk full at the very end), with the result anyway and `storeError` saying so:
   * a finished run's answer is never lost to a failing store (issue 19).
   */
  /** `digest` is null unless the run finished: a failed or cancelled run has no result to digest. */
  done: Promise<RunResult & { digest: string | null; storeId: number | null; eventsLost: string | null; storeError: string | null }>;
}

export type Validation = { ok: true; tasks: number } | { ok: false; errors: string[] };

/** A refused document's errors as "path (node 'id'): detail" lines. */
/**
 * A compile that did not happen because serve was busy (503: try again) or its client left (499,
 * nginx's "client closed request": nobody reads it). Neither is the document's fault.
 */
function compileRefusal(e: unknown): ApiError | null {
  if (e instanceof CompileBusy) return new ApiError(503, e.message);
  if (e instanceof WorkAborted) return new ApiError(499, e.message);
  return null;
}

/** `fn`'s value; another process's lock on the database becomes a 503 saying so. */
function busyAs503<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (isBusy(e)) throw new ApiError(503, e instanceof Error ? e.message : String(e));
    throw e;
  }
}

function refusal(e: unknown): Validation {
  const busy = compileRefusal(e);
  if (busy) throw busy;
  if (e instanceof WorkflowErrors) return { ok: false, errors: e.errors.map((x) => x.message) };
  return { ok: false, errors: [e instanceof Error ? e.message : String(e)] };
}

export interface RunOptions {
  params?: Record<string, number | string | boolean>;
  replayOf?: number;
  /** Run selected: only this node and what it needs upstream (engine/upstream.ts). */
  node?: string;
  /** Take unchanged outputs from the result cache and keep this run's there for later runs. */
  reuse?: boolean;
  /**
   * The same document and params compiled while the workers started (Engine.precompile; the
   * CLI): used instead of compiling again. Not with `node`, nor for a Dask target.
   */
  early?: EarlyCompile;
  /**
   * The same document and params compiled with no options (`gpuflow run --dask`'s check before
   * it connects): a Dask run takes it when its cluster leaves the graph as it is (compiledAs).
   */
  compiledBare?: Compiled;
  /** Aborts the compile (serve: the request's client went away). */
  signal?: AbortSignal;
}

function seedsOf(doc: WorkflowDoc, wf: ValidWorkflow): JsonValue {
  const seeds: Record<string, JsonValue> = {};
  for (const n of doc.nodes) {
    const p = wf.params.get(n.id);
    if (p && typeof p.seed === 'number') seeds[n.id] = p.seed;
  }
  return seeds;
}

export interface ServiceOptions {
  /** How benchmark pools start their workers (the engine's own launcher). */
  launcher: Launcher;
  virtualGpus: number;
  backends?: PoolOptions['backends'];
}

// Defined in api-error.ts; re-exported for modules that still import it from the service.
export { ApiError };

export class GpuflowService {
  private writer: EventWriter | null;
  private readonly machine: string;
  private readonly streamListeners = new Set<(m: RunResultMessage | BenchResultMessage) => void>();
  /** The app's run queue; its changes go out as 'queue' events. */
  private readonly queue: RunQueue;
  /** Running benchmarks' stop switches: close() stops them (their pools are not the engine's). */
  private readonly benches = new Set<{ stop: AbortController; done: Promise<unknown>; progress: BenchProgressTracker }>();
  /** Utilisation and memory over time per worker, for the workers panel. */
  private readonly sampler: WorkerSampler;
  /** Where runs go: null for this workstation's engine, else a Dask cluster (main/dask). */
  private dask: DaskTarget | null = null;
  /** Store writes that found another process's lock, retried off the request path (deferred-writes.ts). */
  private readonly deferred = new DeferredWrites((what, e) => process.stderr.write(`[store] ${what} could not be saved: ${e instanceof Error ? e.message : String(e)}\n`));

  constructor(
    readonly engine: Engine,
    readonly store: Store | null,
    readonly options: ServiceOptions,
  ) {
    // A lock held elsewhere fails a flush every 250 ms (each batch is kept and retried): say so
    // once per 10 s, not four times a second; other failures are each reported.
    let lockNoted = 0;
    const onError = (err: unknown) => {
      if (isBusy(err) && Date.now() - lockNoted < 10_000) return;
      if (isBusy(err)) lockNoted = Date.now();
      console.error(`[store] event flush failed: ${err instanceof Error ? err.message : String(err)}${isBusy(err) ? ' (kept, retrying)' : ''}`);
    };
    this.writer = store ? store.createEventWriter({ flushMs: 250, onError }) : null;
    // A lock held elsewhere must not stall this process's loop: short waits, retried later.
    store?.setBusyTimeout(LOOP_BUSY_TIMEOUT_MS);
    this.sampler = new WorkerSampler(() => engine.pool.workers.values(), engine.bus, {
      queryGpus: engine.discovery.gpus.length ? () => queryGpus() : undefined,
    }).start();
    this.queue = new RunQueue((entries, refused) => this.engine.bus.emit({ type: 'queue', entries, refused }));
    this.machine = machineFingerprint(localMachineInfo(engine.discovery.gpus.map((g) => ({ name: g.name, memoryMiB: g.memoryTotalMiB }))));
  }

  catalog() {
    return catalog();
  }

  /** Validates without running; errors come back as "path (node 'id'): detail" lines. */
  validate(doc: unknown, params: RunOptions['params'] = {}): Validation {
    try {
      const wf = validateWorkflow(doc, params);
      // Checked for the target the run goes to: a Dask cluster's workers bound its tasks.
      const compiled = this.dask ? compileWorkflow(wf, this.dask.compileOptions) : this.engine.compile(wf);
      return { ok: true, tasks: compiled.tasks.size };
    } catch (e) {
      return refusal(e);
    }
  }

  /**
   * `validate`, compiling in slices (Engine.compileAsync): serve and the app check documents as
   * they are edited, and a 100 000-task graph must not stall main's loop for seconds (D8).
   */
  async validateAsync(doc: unknown, params: RunOptions['params'] = {}, signal?: AbortSignal): Promise<Validation> {
    try {
      const wf = validateWorkflow(doc, params);
      const dask = this.dask;
      const compiled = dask
        ? await this.engine.compileGate.run(() => compileWorkflowAsync(wf, { ...dask.compileOptions, signal }), signal)
        : await this.engine.compileAsync(wf, signal);
      return { ok: true, tasks: compiled.tasks.size };
    } catch (e) {
      return refusal(e);
    }
  }

  /** Validates, compiles and starts a run. Throws WorkflowErrors / WorkflowError for bad documents. */
  run(doc: unknown, opts: RunOptions = {}): StartedRun {
    const wf = this.runWorkflow(doc, opts);
    // Compile before the store learns of the run, so a refused workflow leaves no record.
    return this.launch(wf, this.engine.compile(wf), opts);
  }

  /**
   * `run`, compiling in slices of a few ms (Engine.compileAsync): what serve, the app and the CLI
   * use, so that compiling a 100 000-task graph (seconds) never stalls main's loop (defect D8).
   */
  async runAsync(doc: unknown, opts: RunOptions = {}): Promise<StartedRun> {
    const wf = this.runWorkflow(doc, opts);
    traceStart('run-valid');
    if (this.dask && !this.dask.connected) await this.reconnectDask(this.dask);
    const dask = this.dask;
    let compiled: Compiled;
    try {
      const bare = dask && opts.compiledBare && opts.node === undefined ? compiledAs(opts.compiledBare, dask.compileOptions) : null;
      compiled = dask
        ? (bare ?? (await this.engine.compileGate.run(() => compileWorkflowAsync(wf, { ...dask.compileOptions, signal: opts.signal }), opts.signal)))
        : opts.early && opts.node === undefined
          ? await opts.early.take()
          : await this.engine.compileAsync(wf, opts.signal);
    } catch (e) {
      throw compileRefusal(e) ?? e;
    }
    traceStart(dask ? 'dask-compiled' : 'run-compiled');
    const refused = dask ? firstRefusal(compiled) : null;
    if (refused) throw new ApiError(400, 'not runnable on the Dask cluster', [refused.message]);
    return this.launch(wf, compiled, opts);
  }

  /**
   * Sends later runs to the Dask cluster at `address` (tcp://host:port, local:N, local-cuda), or
   * back to this workstation (null). Connects first: a cluster that cannot be reached leaves the
   * target as it was and throws a DaskSetupError naming the cause.
   */
  async setDaskTarget(address: string | null, opts: ConnectOptions = {}): Promise<ClusterInfo | null> {
    // One local cluster at a time: a local one in use (or still finishing a run) is closed first.
    if (address !== null && parseTarget(address).startsWith('local')) {
      const old = this.dask;
      if (old?.target.startsWith('local')) {
        this.dask = null;
        this.retire(old);
      }
      await Promise.all(this.retiring);
    }
    const next = address === null ? null : await DaskTarget.connect(address, this.engine.bus, { log: (l) => this.engine.bus.emit({ type: 'log', level: 'info', message: `dask: ${l}` }), ...opts });
    const old = this.dask;
    this.dask = next;
    if (old) this.retire(old);
    return next?.info() ?? null;
  }

  /**
   * Closes a target runs no longer go to once its run in flight has finished (a cluster switch
   * does not cancel it); close() waits for those still retiring.
   */
  private retire(old: DaskTarget): void {
    const closed = old.idle().then(() => old.close());
    this.retiring.add(closed);
    void closed.finally(() => this.retiring.delete(closed));
  }

  private readonly retiring = new Set<Promise<void>>();
  private reconnecting: Promise<void> | null = null;

  /** A target whose scheduler was lost connects again before the next run (a DaskSetupError, a 503, when it is still gone). */
  private reconnectDask(lost: DaskTarget): Promise<void> {
    this.reconnecting ??= lost
      .reconnect()
      .then(
        (next) => {
          if (this.dask === lost) {
            this.dask = next;
            this.retire(lost);
          } else void next.close();
        },
        (e: unknown) => {
          throw new ApiError(503, `the Dask cluster ${lost.target} is disconnected and reconnecting failed: ${e instanceof Error ? e.message : String(e)}`);
        },
      )
      .finally(() => (this.reconnecting = null));
    return this.reconnecting;
  }

  /** The Dask cluster runs go to (null: this workstation), with its workers as last reported. */
  daskTarget(): DaskTarget | null {
    return this.dask;
  }

  /** The cluster selector's state: the target runs go to, and the one remembered in the store. */
  cluster(): { target: string | null; remembered: string | null; info: ClusterInfo | null } {
    const remembered = this.store ? getSetting(this.store.db, 'dask.target') : undefined;
    return { target: this.dask?.target ?? null, remembered: typeof remembered === 'string' ? remembered : null, info: this.dask?.info() ?? null };
  }

  /** Selects the target for the app's runs and remembers it (null: this workstation). */
  async selectCluster(address: string | null, opts: ConnectOptions = {}): Promise<ClusterInfo | null> {
    const info = await this.setDaskTarget(address, opts);
    if (this.store) setSetting(this.store.db, 'dask.target', address);
    return info;
  }

  /** The connection test: connects to `address` on its own bridge, lists its workers, disconnects. */
  async testCluster(address: string): Promise<ClusterInfo> {
    // One test bridge at a time, and no second local cluster: a test of the target in use asks it.
    if (this.testing) throw new ApiError(409, 'a connection test is already running: try again when it has finished');
    const target = parseTarget(address);
    const current = this.dask;
    if (current?.connected && current.target === target) {
      await current.refreshWorkers();
      return current.info();
    }
    if (target.startsWith('local')) throw new ApiError(409, `testing ${target} would start a local cluster beside the one gpuflow may run: use it instead (one local cluster at a time)`);
    this.testGuard.admit(target, [current?.target ?? null, this.cluster().remembered]);
    this.testing = true;
    const startedAt = Date.now();
    try {
      const t = await DaskTarget.connect(target, null);
      try {
        await t.refreshWorkers();
        return t.info();
      } finally {
        await t.close();
      }
    } catch (e) {
      if (!(e instanceof DaskSetupError) || e.code !== 'unreachable') throw e;
      // Refused, filtered or silent: one message, after the same time.
      await new Promise((r) => setTimeout(r, this.testGuard.holdFor(startedAt)));
      throw new DaskSetupError('unreachable', unreachableMessage(target));
    } finally {
      this.testing = false;
    }
  }

  private testing = false;
  private readonly testGuard = new ClusterTestGuard();

  /** Reconnects to the remembered cluster (serve and the app at start); a failure is logged, runs stay local. */
  async restoreCluster(): Promise<void> {
    const { remembered } = this.cluster();
    if (!remembered) return;
    try {
      await this.setDaskTarget(remembered);
    } catch (e) {
      this.engine.bus.emit({ type: 'log', level: 'warn', message: `the remembered Dask cluster ${remembered} is not available (${e instanceof Error ? e.message : String(e)}); runs go to this workstation` });
    }
  }

  private runWorkflow(doc: unknown, opts: RunOptions): ValidWorkflow {
    return validateWorkflow(opts.node !== undefined ? upstreamDoc(doc, opts.node) : doc, opts.params ?? {});
  }

  /** Records a compiled run in the store and starts it. */
  private launch(wf: ValidWorkflow, compiled: Compiled, opts: RunOptions): StartedRun {
    let storeId: number | null = null;
    let uuid: string | undefined;
    const dask = this.dask;
    // A search whose trials share GPUs (the rule `gpuflow run` plans its pool by) trains on k GPU
    // workers per GPU here too: the pool lends the missing ones for this run (its graph is
    // compiled for the pool as it is, so it compiles once).
    const sharing = dask ? undefined : planGpuSharing(compiled, { useGpus: this.engine.pool.gpuSharing !== undefined, backends: this.options.backends });
    const pool = this.engine.pool;
    const lease = sharing ? pool.lendGpuWorkers(sharing) : null;
    const lent = lease?.sharing;
    const recorded = lent ?? pool.gpuSharing;
    // The run's workers: the ready ones, and those lent to it (still starting: they join it when ready).
    const local = [...pool.workers.values()].filter((w) => (pool.isLent(w.id) ? lent !== undefined && w.alive : pool.ready.includes(w)));
    const workers: Record<string, JsonValue>[] = dask
      ? dask.currentWorkers.map((w) => ({ id: `dask-${w.name}`, kind: w.gpus.length ? 'gpu' : 'cpu', label: `Dask ${w.name}`, host: w.host, threads: w.nthreads, memoryLimit: w.memory_limit, gpus: w.gpus.map((g) => g.name) }))
      : local.map((w) => ({ id: w.id, kind: w.config.kind, label: w.config.label, backends: w.backends.filter((b) => b.available).map((b) => b.name), ...(w.address === null ? { starting: true } : {}), ...gpuSharingOf(w.config.kind, recorded) }));
    // Workers the run goes without (failed to start, device gone) are part of its record, with why.
    if (!dask)
      for (const [id, reason] of pool.gone) {
        if (pool.isLent(id) && lent === undefined) continue;
        const w = pool.workers.get(id);
        workers.push({ id, kind: w?.config.kind ?? null, label: w?.config.label ?? id, backends: [], leftOut: reason });
      }
    if (this.store) {
      const store = this.store;
      // The run's id comes from this write, so it cannot wait: a lock held elsewhere is a 503.
      const rec = busyAs503(() => {
        try {
          return store.startRun({
            workflowHash: store.saveWorkflowVersion(wf.doc).hash,
            params: (wf.doc.params ?? {}) as Record<string, JsonValue>,
            seeds: seedsOf(wf.doc, wf),
            devices: workers as unknown as JsonValue,
            machine: this.machine,
            replayOf: opts.replayOf,
            target: dask ? dask.record() : null,
          });
        } catch (e) {
          // Not started: the workers lent for it go back.
          lease?.release();
          throw e;
        }
      });
      storeId = rec.id;
      uuid = rec.uuid;
      traceStart('run-recorded');
    }
    const handle: RunHandle = dask ? this.daskHandle(dask, compiled, uuid) : this.engine.run(wf, uuid, { compiled, reuse: opts.reuse, retain: opts.reuse, lent });
    if (lease) void handle.result.then(lease.release, lease.release);
    traceStart('run-launched');
    const t0 = Date.now();
    const unsubscribe = this.writer && storeId !== null ? this.recordEvents(handle.runId, storeId, t0) : () => undefined;
    const done = handle.result.then(async (r) => {
      unsubscribe();
      const digest = r.status === 'finished' ? await runDigest(r) : null;
      traceStart('run-digest');
      let eventsLost: string | null = null;
      let storeError: string | null = null;
      if (this.store && storeId !== null) {
        try {
          // Events that could not be written (full disk, …) are recorded on the run, never lost silently.
          const loss = this.writer ? this.writer.settleRun(storeId) : { dropped: 0, error: undefined };
          if (loss.dropped > 0) eventsLost = `${loss.dropped} task events could not be saved: ${shortReason(loss.error)}`;
          const store = this.store;
          const id = storeId;
          const outcome = {
            status: r.status === 'finished' ? ('done' as const) : r.status,
            resultDigest: digest,
            results: storedResults(r),
            error: [r.error, eventsLost].filter(Boolean).join('; ') || null,
            eventsDropped: loss.dropped,
          };
          this.deferred.write(`the end of run ${id}`, () => store.finishRun(id, outcome));
        } catch (e) {
          storeError = e instanceof Error ? e.message : String(e);
        }
      }
      traceStart('run-stored');
      const result = { ...r, digest, storeId, eventsLost, storeError };
      for (const l of this.streamListeners) l({ type: 'run-result', result });
      return result;
    });
    return { runId: handle.runId, storeId, handle, done };
  }

  /** A Dask run as the engine's RunHandle, so recording, results and cancel work as for local runs. */
  private daskHandle(dask: DaskTarget, compiled: Compiled, uuid: string = randomUUID()): RunHandle {
    const r = dask.run(compiled, uuid);
    this.daskRuns.set(uuid, r);
    void r.result.finally(() => this.daskRuns.delete(uuid));
    return { runId: uuid, compiled, result: r.result, cancel: (why) => r.cancel(why), story: () => [] };
  }

  private readonly daskRuns = new Map<string, ReturnType<DaskTarget['run']>>();

  /**
   * Queues a run (the app's Run / Run selected): it starts when the queue's previous run ends,
   * reusing the result cache, compiled in slices (runAsync). The document is validated now, so a
   * bad one is refused at the click; so is one that cannot start when the queue is idle.
   */
  async enqueue(doc: unknown, opts: Pick<RunOptions, 'params' | 'node'> = {}): Promise<QueueEntry> {
    const wf = this.runWorkflow(doc, opts);
    const label = `${wf.doc.name ?? 'workflow'}${opts.node !== undefined ? ` → ${opts.node}` : ''}`;
    try {
      return await this.queue.add(
        label,
        opts.node ?? null,
        async () => {
          const s = await this.runAsync(doc, { ...opts, reuse: true });
          return { runId: s.runId, storeId: s.storeId, done: s.done };
        },
        JSON.stringify(doc).length,
      );
    } catch (e) {
      if (e instanceof QueueFullError) throw new ApiError(429, e.message);
      throw e;
    }
  }

  queueEntries(): QueueEntry[] {
    return this.queue.list();
  }

  removeQueued(id: string): boolean {
    try {
      return this.queue.remove(id);
    } catch (e) {
      if (e instanceof QueueError) throw new ApiError(409, e.message);
      throw e;
    }
  }

  /** Run results and benchmark results, for the WebSocket stream. */
  onResult(fn: (m: RunResultMessage | BenchResultMessage) => void): () => void {
    this.streamListeners.add(fn);
    return () => this.streamListeners.delete(fn);
  }

  devices(): DeviceInfo {
    const d = this.engine.discovery;
    const n = nativeInfo();
    return {
      gpus: d.gpus,
      reason: d.reason ?? null,
      cpu: d.cpu,
      backends: [
        { name: 'js', available: true },
        { name: 'native-cpu', available: n.available, reason: n.available ? undefined : n.reason },
        { name: 'cuda', available: n.cuda && d.gpus.length > 0, reason: d.gpus.length === 0 ? `no GPU (${d.reason ?? 'none found'})` : n.cudaReason },
      ],
    };
  }

  workers(): WorkerInfo[] {
    return [...this.engine.pool.workers.values()].map((w) => ({
      id: w.id,
      kind: w.config.kind,
      label: w.config.label,
      pid: w.pid ?? null,
      alive: w.alive,
      threads: w.config.threads,
      memoryLimit: w.config.memoryLimit,
      rss: w.rss,
      heldBytes: w.heldBytes,
      backends: w.backends,
      restarts: this.engine.pool.restarts.get(w.id) ?? 0,
      samples: this.sampler.samples(w.id),
      ...this.sampler.source(w.config),
      gone: this.engine.pool.gone.get(w.id),
    }));
  }

  restartWorker(id: string): void {
    if (!this.engine.pool.workers.has(id)) throw new ApiError(404, `no worker '${id}'`);
    this.engine.pool.restart(id);
  }

  examples(): Promise<ExampleInfo[]> {
    return listExamples();
  }

  private needStore(): Store {
    if (!this.store) throw new ApiError(409, 'no store is open (started with --no-store)');
    return this.store;
  }

  history(filter: RunFilter = {}): RunSummary[] {
    return this.needStore().listRuns(filter);
  }

  /** The stored run, with the workflow version it ran (the app opens it with the run's stream). */
  getRun(id: number): RunRecord {
    const r = this.needStore().getRun(id);
    if (!r) throw new ApiError(404, `no run ${id}`);
    const version = this.needStore().getWorkflowVersion(r.workflowHash);
    return version ? { ...r, workflow: version.doc } : r;
  }

  runEvents(id: number): StoredEvent[] {
    this.getRun(id);
    return this.needStore().listEvents(id, { limit: 200_000 });
  }

  compare(a: number, b: number): RunComparison {
    this.getRun(a);
    this.getRun(b);
    return this.needStore().compareRuns(a, b);
  }

  /** Re-runs a stored run's exact workflow version (its params and seeds are in the version). */
  replay(id: number): Promise<StartedRun> {
    const original = this.getRun(id);
    const version = this.needStore().getWorkflowVersion(original.workflowHash);
    if (!version) throw new ApiError(404, `run ${id}'s workflow version ${original.workflowHash.slice(0, 12)} is missing from the store`);
    return this.runAsync(version.doc, { replayOf: id });
  }

  benchmarks(workflowHash?: string): BenchmarkRecord[] {
    return this.needStore().listBenchmarks(workflowHash);
  }

  /** Starts a benchmark in the background; its record arrives as a 'bench-result' message. */
  startBench(doc: unknown, opts: { params?: RunOptions['params']; repeat?: number; warmup?: number } = {}): { benchId: string; done: Promise<BenchmarkRecord>; stop(): void } {
    const store = this.needStore();
    const check = this.validate(doc, opts.params ?? {});
    if (!check.ok) throw new ApiError(400, 'invalid workflow', check.errors);
    // Timing nothing measures only overhead: an empty workflow is refused with the reason.
    if (check.tasks === 0) throw new ApiError(400, 'nothing to benchmark', ['the workflow has no tasks to run: add nodes (or open an example) first']);
    const benchId = randomUUID();
    const stop = new AbortController();
    const nativeCpu = nativeInfo().available && (this.options.backends === undefined || this.options.backends.includes('native-cpu'));
    const plan = plannedConfigs({ discovery: this.engine.discovery, virtualGpus: this.options.virtualGpus, nativeCpu, dask: this.dask });
    const name = typeof doc === 'object' && doc !== null && 'name' in doc && typeof doc.name === 'string' ? doc.name : 'workflow';
    const progress = new BenchProgressTracker(benchId, name, plan.names, plan.available, opts.warmup ?? 1, opts.repeat ?? 3, Date.now());
    const done = runBenchmark(doc, {
      signal: stop.signal,
      discovery: this.engine.discovery,
      launcher: this.options.launcher,
      store,
      virtualGpus: this.options.virtualGpus,
      nativeCpu,
      backends: this.options.backends,
      params: opts.params,
      repeat: opts.repeat,
      warmup: opts.warmup,
      onProgress: (message) => this.engine.bus.emit({ type: 'log', level: 'info', message: `benchmark: ${message}` }),
      // Onto the stream (a copy: emit stamps its own sequence number), its runs marked as this benchmark's.
      onEvent: (e) => this.engine.bus.emit(e.type === 'run' ? { ...e, benchId } : { ...e }),
      onStep: (s) => {
        if (s.type === 'ran') progress.ran(s.ms);
        else if (s.type === 'run') progress.runStarting(s.runId);
        else if (s.type === 'starting') progress.starting(s.configIndex);
        else progress.workersUp();
      },
      dask: this.dask,
    });
    done.then(
      (result) => {
        for (const l of this.streamListeners) l({ type: 'bench-result', benchId, result });
      },
      (e: unknown) => {
        for (const l of this.streamListeners) l({ type: 'bench-result', benchId, result: { error: e instanceof Error ? e.message : String(e) } });
      },
    );
    const entry = { stop, done: done.catch(() => undefined), progress };
    this.benches.add(entry);
    // Every run's events, local (forwarded by onEvent above) or on the Dask cluster (its bridge emits here).
    const unrecord = this.engine.bus.subscribe((e) => progress.record(e));
    void entry.done.then(() => {
      unrecord();
      this.benches.delete(entry);
    });
    return { benchId, done, stop: () => stop.abort() };
  }

  /** The benchmarks running now, oldest first, with their progress (a page that loads re-attaches to the last). */
  benchProgress(): BenchProgress[] {
    const now = Date.now();
    return [...this.benches].map((b) => b.progress.snapshot(now));
  }

  /** The events so far of the run benchmark `benchId` has going on now ([] between runs, or when it is not running). */
  benchRunEvents(benchId: string): EngineEvent[] {
    for (const b of this.benches) if (b.progress.benchId === benchId) return b.progress.runEvents();
    return [];
  }

  /** Stops a running benchmark: its current run is cancelled, its pools shut down, nothing recorded. */
  cancelBench(benchId: string): boolean {
    for (const b of this.benches) {
      if (b.progress.benchId !== benchId || b.stop.signal.aborted) continue;
      b.stop.abort();
      return true;
    }
    return false;
  }

  private recordEvents(runId: string, storeId: number, t0: number): () => void {
    const writer = this.writer!;
    return this.engine.bus.subscribe((e: EngineEvent) => {
      if (!('runId' in e) || e.runId !== runId) return;
      if (e.type === 'task') writer.push(storeId, { t: e.start - t0, type: 'task', key: e.key, worker: e.worker, op: e.op, ms: e.end - e.start, bytes: e.bytes, backend: e.backend });
      else if (e.type === 'transfer') writer.push(storeId, { t: e.start - t0, type: 'transfer', key: e.key, worker: e.to, op: 'transfer', ms: e.end - e.start, bytes: e.bytes });
      else if (e.type === 'task-error') writer.push(storeId, { t: e.t - t0, type: 'error', key: e.key, worker: e.worker, op: e.node });
    });
  }

  cancel(runId: string, reason?: string): boolean {
    const d = this.daskRuns.get(runId);
    if (d) {
      d.cancel(reason);
      return true;
    }
    return this.engine.cancel(runId, reason);
  }

  subscribe(fn: (e: EngineEvent) => void): () => void {
    return this.engine.bus.subscribe(fn);
  }

  /**
   * Stops everything and closes the store. `detachWorkers` (the CLI, whose process ends next):
   * the workers are sent shutdown but not waited for (WorkerPool.shutdown), a local Dask cluster is
   * killed rather than closed; the store is written and closed here all the same.
   */
  async close(opts: { detachWorkers?: boolean } = {}): Promise<void> {
    this.sampler.stop();
    // A benchmark runs its own pools: stop it and wait for them to shut down, or it runs on headless.
    for (const b of this.benches) b.stop.abort();
    await Promise.all([...this.benches].map((b) => b.done));
    for (const r of this.daskRuns.values()) r.cancel('gpuflow shutting down');
    // The CLI's process ends next: a local cluster it started is killed, not closed gracefully.
    await this.dask?.close(opts.detachWorkers);
    this.dask = null;
    await Promise.all(this.retiring);
    await this.engine.shutdown({ detach: opts.detachWorkers });
    // What waited for another process's lock is written now, waiting as long as the CLI does.
    this.store?.setBusyTimeout(BUSY_TIMEOUT_MS);
    this.deferred.drain();
    this.writer?.close();
    this.writer = null;
    this.store?.close();
  }
}

/** A GPU worker's record names how many GPU workers share its GPU and why (main/engine/gpu-sharing.ts). */
function gpuSharingOf(kind: string, sharing: GpuSharing | undefined): Record<string, JsonValue> {
  return kind === 'gpu' && sharing ? { workersPerGpu: sharing.perDevice, workersPerGpuWhy: sharing.why } : {};
}
