/**
 * The engine: one worker pool, one event bus, and the runs on them. `run()` validates, compiles
 * and starts a workflow, returning a handle to await or cancel; runs are independent and may
 * overlap on the same workers.
 */
import { randomUUID } from 'node:crypto';
import type { RunResult } from '../../common/results';
import type { Discovery } from '../cluster/discovery';
import type { GpuSharing } from '../cluster/plan';
import { WorkerPool, type PoolOptions } from '../cluster/pool';
import { CPU_BACKED_TASK_ELEMENTS, GPU_TASK_ELEMENTS } from './compile/coarsen';
import { compiledAs, compileWorkflow, compileWorkflowAsync, type CompileOptions, type Compiled } from './compile/compile';
import { CompileGate } from './compile/compile-gate';
import { CompileCache, type GraphOptions } from './compile/compile-cache';
import { EventBus } from './event-bus';
import { RunController } from './run';
import { ResultCache, type CacheOptions } from './cache/result-cache';
import type { ValidWorkflow } from './validate';
import type { DeviceTarget } from './ops/types';
import { traceStart } from '../../common/start-trace';
import type { WorkerConfig } from '../../common/messages';
import type { WorkerHandle } from '../cluster/worker-handle';
import { needsDeviceLibraries } from './compile/libraries';

/**
 * A graph compiled while the workers start (Engine.precompile). `take()`, once they are ready,
 * gives it when the workers turned out as planned, else compiles again for what is there.
 */
export interface EarlyCompile {
  take(): Promise<Compiled>;
  /** The graph compiled for the plan as it was (`gpuflow run` plans a search's GPU workers per GPU from it). */
  readonly planned: Promise<Compiled>;
  /** This compile when the pool's plan still gives the compiler what it gave, else a new one for the plan as it is now (WorkerPool.shareGpus). */
  forPlan(): EarlyCompile;
}

/** The one-device lowerings' target for these GPU workers (undefined: none, or turned off). */
function targetOf(gpus: WorkerConfig[]): DeviceTarget | undefined {
  if (process.env.GPUFLOW_ONE_DEVICE_LINALG === '0') return undefined;
  return gpus.length ? { gpus: gpus.length, bytes: Math.min(...gpus.map((c) => c.memoryLimit)) } : undefined;
}

/**
 * What the compiler is told of the workers beside the cuda target. When every GPU worker has its
 * cuda backend (`cudaGpus` of them), fused array programs and their combines are theirs alone: a
 * CPU worker would take them only to be slower and to send its partials through the host (issue
 * 30: 119 chunks moved that way in the 2 TB seed run on four H100s plus CPU workers, 0.46 s
 * against 0.37). GPU workers that run on the CPU (virtual GPUs) are no faster than a CPU worker,
 * which keeps its share there. Reductions coarsen their chunk tasks for the GPU workers
 * (compile/coarsen.ts; GPUFLOW_COARSEN=0: off): GPU-sized tasks on cuda, CPU-sized otherwise.
 */
function workerOptions(configs: WorkerConfig[], cudaGpus: number): WorkerOptions {
  const gpus = configs.filter((c) => c.kind === 'gpu' || c.kind === 'virtual-gpu').length;
  if (gpus === 0) return {};
  const cuda = cudaGpus === gpus;
  return {
    ...(cuda ? { arrayResource: 'gpu' as const } : {}),
    gpuShare: { gpus: process.env.GPUFLOW_COARSEN === '0' ? 0 : gpus, taskElements: cuda ? gpuTaskElements() : CPU_BACKED_TASK_ELEMENTS },
  };
}

/**
 * GPU_TASK_ELEMENTS, or GPUFLOW_GPU_TASK_ELEMENTS for A/B runs on the GPU machine (bench/scaling/):
 * a whole number from 2^20 up to 2^30, past which the device kernels' 32-bit block indexing ends.
 */
function gpuTaskElements(): number {
  const v = process.env.GPUFLOW_GPU_TASK_ELEMENTS;
  if (v === undefined || v === '') return GPU_TASK_ELEMENTS;
  const n = Number(v);
  if (!Number.isInteger(n) || n < CPU_BACKED_TASK_ELEMENTS || n > GPU_TASK_ELEMENTS) throw new Error(`GPUFLOW_GPU_TASK_ELEMENTS: expected a whole number from ${CPU_BACKED_TASK_ELEMENTS} to ${GPU_TASK_ELEMENTS}, got '${v}'`);
  return n;
}

type WorkerOptions = Pick<CompileOptions, 'arrayResource' | 'gpuShare'>;

const sameTarget = (a: DeviceTarget | undefined, b: DeviceTarget | undefined) => a?.gpus === b?.gpus && a?.bytes === b?.bytes;
const sameWorkers = (a: WorkerOptions, b: WorkerOptions) => a.arrayResource === b.arrayResource && a.gpuShare?.gpus === b.gpuShare?.gpus && a.gpuShare?.taskElements === b.gpuShare?.taskElements;

export interface RunHandle {
  runId: string;
  compiled: Compiled;
  result: Promise<RunResult>;
  cancel(reason?: string): void;
  story: RunController['story'];
}

export interface EngineRunOptions {
  /** The graph from `compileAsync`, so the run does not compile again (synchronously). */
  compiled?: Compiled;
  /** Start from outputs the result cache holds (tasks with the same content digest). */
  reuse?: boolean;
  /** Keep this run's outputs in the result cache for later runs. */
  retain?: boolean;
  /**
   * The run trains on the GPU workers the pool lent for this sharing too (WorkerPool.lendGpuWorkers:
   * serve, a search whose trials share GPUs), and its record says so.
   */
  lent?: GpuSharing;
}

export class Engine {
  readonly bus = new EventBus();
  readonly pool: WorkerPool;
  /** Outputs of earlier runs kept on the workers, by content digest (used by runs that ask). */
  readonly cache: ResultCache;
  private readonly runs = new Map<string, RunController>();

  constructor(readonly discovery: Discovery, poolOptions: Omit<PoolOptions, 'discovery'>, cacheOptions: CacheOptions = {}) {
    this.pool = new WorkerPool({ ...poolOptions, discovery });
    this.cache = new ResultCache(this.pool, cacheOptions);
    this.pool.listen({
      up: (w) => this.bus.emit({ type: 'worker', worker: w.id, kind: w.config.kind, label: w.config.label, state: 'up', pid: w.pid }),
      down: (w, end) => this.bus.emit({ type: 'worker', worker: w.id, kind: w.config.kind, label: w.config.label, state: 'down', reason: end.detail ? `${end.reason} (${end.detail})` : end.reason, pid: w.pid }),
      gone: (w, reason) => this.bus.emit({ type: 'worker', worker: w.id, kind: w.config.kind, label: w.config.label, state: 'gone', reason, pid: w.pid }),
    });
  }

  start(): Promise<void> {
    return this.pool.start();
  }

  /**
   * The largest memory limit among workers: no task may need more (none without workers: a
   * Dask-only engine). Here and in every view the compiler gets, the pool's own workers: GPU
   * workers lent to a run that shares GPUs (WorkerPool.lendGpuWorkers) come and go with it.
   */
  get maxTaskBytes(): number | undefined {
    return largest(this.pool.ownWorkers.map((w) => w.config.memoryLimit));
  }

  /**
   * The GPU workers whose cuda backend loaded, for the compiler's one-device lowerings (svd / qr
   * in one task, matmul of generated inputs in one block: docs/linalg.md);
   * GPUFLOW_ONE_DEVICE_LINALG=0 turns those off.
   */
  get deviceTarget(): DeviceTarget | undefined {
    return targetOf(this.cudaGpus);
  }

  /** The ready GPU workers whose cuda backend loaded. */
  private get cudaGpus(): WorkerConfig[] {
    return this.pool.ownWorkers.filter((w) => w.config.kind === 'gpu' && w.backends.some((b) => b.name === 'cuda' && b.available)).map((w) => w.config);
  }

  /**
   * The GPU workers a run started now will have with cuda: the ready ones whose cuda backend
   * loaded and those still starting whose plan includes cuda (a run may begin before every GPU
   * worker is ready: WorkerPool.whenFirstReady), none that are gone.
   */
  private get expectedCudaGpus(): WorkerConfig[] {
    return this.pool.ownWorkers
      .filter((w) => w.config.kind === 'gpu' && !this.pool.gone.has(w.id))
      .filter((w) => (w.address === null ? w.alive && w.config.backends.includes('cuda') : w.backends.some((b) => b.name === 'cuda' && b.available)))
      .map((w) => w.config);
  }

  /** Every worker's config but the gone ones'. */
  private get liveConfigs(): WorkerConfig[] {
    return this.pool.ownWorkers.filter((w) => !this.pool.gone.has(w.id)).map((w) => w.config);
  }

  /** The planned GPU workers whose backends include cuda. */
  private get plannedCudaGpus(): WorkerConfig[] {
    return this.pool.plannedConfigs.filter((c) => c.kind === 'gpu' && c.backends.includes('cuda'));
  }

  /**
   * `deviceTarget` as the plan promises it before any worker is ready: every planned GPU worker
   * whose backends include cuda, with its cuda backend loaded.
   */
  get plannedDeviceTarget(): DeviceTarget | undefined {
    return targetOf(this.plannedCudaGpus);
  }

  /**
   * Starts compiling `wf` now, for the planned workers, while they start (the CLI: main has
   * nothing else to do then; 0.14 s for the 2 859 tasks of the seed workload on the GPU machine).
   * The compiler needs only the largest memory limit (from the plan) and the device target; when
   * the ready workers give another target (a GPU worker whose cuda backend did not load, or that
   * did not start), `take()` compiles again for it. `watchWorkers`: a compile that may be taken
   * for another plan (CompileOptions.watchWorkers; `gpuflow run`'s search, planned from it).
   * `earlier`: a compile of `wf` for another plan (forPlan), taken when it stands for this one's
   * (compiledAs).
   */
  precompile(wf: ValidWorkflow, { watchWorkers, earlier }: { watchWorkers?: boolean; earlier?: Promise<Compiled> } = {}): EarlyCompile {
    this.warmLibrariesFor(wf);
    const planned = this.plannedDeviceTarget;
    const maxTaskBytes = largest(this.pool.plannedConfigs.map((c) => c.memoryLimit));
    const workers = workerOptions(this.pool.plannedConfigs, this.plannedCudaGpus.length);
    const opts = { maxTaskBytes, device: planned, ...workers, watchWorkers };
    const compiling = earlier ? earlier.then((c) => compiledAs(c, opts) ?? compileWorkflowAsync(wf, opts), () => compileWorkflowAsync(wf, opts)) : compileWorkflowAsync(wf, opts);
    const early = compiling.then((c) => (traceStart('compiled-early'), c));
    // Its failure is the run's, reported through take() (or never, if no run takes it).
    early.catch(() => undefined);
    const compile: EarlyCompile = {
      planned: early,
      take: () => {
        const cuda = this.expectedCudaGpus;
        const now = workerOptions(this.liveConfigs, cuda.length);
        return sameTarget(planned, targetOf(cuda)) && sameWorkers(workers, now) && maxTaskBytes === this.maxTaskBytes ? early : this.compileAsync(wf);
      },
      forPlan: () => {
        const configs = this.pool.plannedConfigs;
        const same = sameTarget(planned, this.plannedDeviceTarget) && sameWorkers(workers, workerOptions(configs, this.plannedCudaGpus.length)) && maxTaskBytes === largest(configs.map((c) => c.memoryLimit));
        // A search planned at several GPU workers per GPU tells the compiler of more, smaller
        // workers; its trials' graph reads none of that, so the compile for one per GPU is kept.
        return same ? compile : this.precompile(wf, { earlier: early });
      },
    };
    return compile;
  }

  /** The compiler's view of the ready workers' kinds (workerOptions). */
  private get workerOptions(): WorkerOptions {
    return workerOptions(this.pool.ownWorkers.map((w) => w.config), this.cudaGpus.length);
  }

  /** GPU workers already asked to warm their libraries (a restarted worker is a new handle). */
  private readonly librariesAsked = new WeakSet<WorkerHandle>();

  /**
   * When `wf` has linear algebra, asks every GPU worker, started or starting, to make its cuBLAS /
   * cuSOLVER handles now (compile/libraries.ts), once per worker: the compile and
   * the workers' start overlap it, not the first matmul task. Without linear algebra nothing is sent.
   */
  warmLibrariesFor(wf: ValidWorkflow): void {
    if (!needsDeviceLibraries(wf)) return;
    for (const w of this.pool.workers.values()) {
      if (w.config.kind !== 'gpu' || !w.alive || this.librariesAsked.has(w)) continue;
      this.librariesAsked.add(w);
      w.send({ type: 'warm-libraries' });
    }
  }

  compile(wf: ValidWorkflow): Compiled {
    this.warmLibrariesFor(wf);
    return compileWorkflow(wf, { maxTaskBytes: this.maxTaskBytes, device: this.deviceTarget, ...this.workerOptions });
  }

  /** One compile at a time for the whole process, with a short line behind it (compile-gate.ts). */
  readonly compileGate = new CompileGate();

  /**
   * `compile` in slices of a few ms (main/engine/slices.ts): main's loop keeps serving meanwhile.
   * Through the compile gate; `signal` (a client gone) stops it waiting or compiling.
   */
  compileAsync(wf: ValidWorkflow, signal?: AbortSignal): Promise<Compiled> {
    this.warmLibrariesFor(wf);
    // The same workflow for the same pool again (a repeated run handed to a warm serve): the graph
    // compiled then, which a fresh compile would equal (compile-cache.ts).
    const opts: GraphOptions = { maxTaskBytes: this.maxTaskBytes, device: this.deviceTarget, ...this.workerOptions };
    const key = this.compiledGraphs.key(wf, opts);
    const kept = this.compiledGraphs.get(key);
    if (kept) return Promise.resolve(kept);
    return this.compileGate.run(async () => {
      const compiled = await compileWorkflowAsync(wf, { ...opts, signal });
      this.compiledGraphs.set(key, compiled);
      return compiled;
    }, signal);
  }

  /** Graphs compileAsync made, by workflow and the compiler's view of the pool. */
  private readonly compiledGraphs = new CompileCache();

  run(wf: ValidWorkflow, runId: string = randomUUID(), opts: EngineRunOptions = {}): RunHandle {
    const compiled = opts.compiled ?? this.compile(wf);
    const cacheUse = opts.reuse || opts.retain ? { cache: this.cache, reuse: opts.reuse ?? false, retain: opts.retain ?? false } : null;
    let ctl = new RunController(runId, compiled, this.pool, this.bus, cacheUse, opts.lent);
    this.runs.set(runId, ctl);
    void ctl.start();
    // An output taken from the cache whose holder died after scheduling ended cannot be
    // recomputed by that run: the same run starts again, computing everything (rare: a kill
    // between the cache look-up and the result fetch).
    const result = ctl.result
      .then((r) => {
        if (!ctl.lostCachedOutput || r.status !== 'failed') return r;
        ctl = new RunController(runId, compiled, this.pool, this.bus, cacheUse && { ...cacheUse, reuse: false }, opts.lent);
        this.runs.set(runId, ctl);
        void ctl.start();
        return ctl.result;
      })
      .finally(() => this.runs.delete(runId));
    return { runId, compiled, result, cancel: (r) => ctl.cancel(r), story: (k) => ctl.story(k) };
  }

  /** `reason`: what the run's error says (default: the engine's own). */
  cancel(runId: string, reason?: string): boolean {
    const r = this.runs.get(runId);
    r?.cancel(reason);
    return r !== undefined;
  }

  get activeRuns(): string[] {
    return [...this.runs.keys()];
  }

  /** `detach`: do not wait for the workers' own exit (WorkerPool.shutdown). */
  async shutdown(opts: { detach?: boolean } = {}): Promise<void> {
    for (const r of this.runs.values()) r.cancel('engine shutting down');
    await this.pool.shutdown(opts);
  }
}

/** The largest of `limits`; undefined for none (Math.max of nothing is -Infinity: every task too big). */
function largest(limits: number[]): number | undefined {
  return limits.length ? Math.max(...limits) : undefined;
}
