/**
 * The one-click benchmark: the same workflow on one CPU core, all CPU cores, one GPU and all GPUs
 * (the Dask GPU blog's four rows), each with its own worker pool, warm-up runs, timed repetitions
 * and a result digest; configurations the machine lacks are recorded as unavailable with the
 * reason, never faked; virtual GPUs stand in only when asked for, and are labelled virtual.
 */
import type { EngineEvent } from '../../common/events';
import type { BenchmarkConfigName, BenchmarkRecord, JsonValue } from '../../common/store-types';
import type { WorkflowDoc } from '../../common/workflow';
import type { Discovery } from '../cluster/discovery';
import type { Launcher } from '../cluster/launcher';
import type { PoolOptions } from '../cluster/pool';
import { Engine } from '../engine/engine';
import { validateWorkflow } from '../engine/validate';
import { localMachineInfo, machineFingerprint } from '../store/fingerprint';
import type { Store } from '../store/store';
import type { BenchmarkConfigInput } from '../store/benchmarks';
import { runDigest } from './run-record';
import { randomUUID } from 'node:crypto';
import type { RunResult } from '../../common/results';
import { compileWorkflow } from '../engine/compile/compile';
import { planGpuSharing } from '../engine/gpu-sharing';
import type { DaskTarget } from '../dask/target';

export interface BenchConfig {
  name: BenchmarkConfigName;
  available: boolean;
  reason?: string;
  virtual: boolean;
  pool?: Omit<PoolOptions, 'discovery' | 'launcher'>;
}

/** The four configurations for this machine. `nativeCpu` decides how "all cores" is made. */
export function benchConfigs(d: Discovery, virtualGpus: number, nativeCpu: boolean): BenchConfig[] {
  const cores = d.cpu.cores;
  const gpus = d.gpus.length;
  const noGpu = `no GPU on this machine (${d.reason ?? 'none found'})`;
  const gpuConfig = (name: BenchmarkConfigName, n: number): BenchConfig => {
    if (gpus >= 1) return { name, available: true, virtual: false, pool: { useGpus: true, maxGpus: n, cpuWorkers: 0 } };
    if (virtualGpus >= 1) return { name, available: true, virtual: true, pool: { useGpus: false, cpuWorkers: 0, virtualGpus: Math.min(n, virtualGpus) } };
    return { name, available: false, virtual: false, reason: noGpu };
  };
  return [
    { name: '1 CPU core', available: true, virtual: false, pool: { useGpus: false, cpuWorkers: 1, threadsPerCpuWorker: 1 } },
    {
      name: 'all CPU cores',
      available: true,
      virtual: false,
      // The native backend threads within one worker; the js backend needs one process per core.
      pool: nativeCpu ? { useGpus: false, cpuWorkers: 1, threadsPerCpuWorker: cores } : { useGpus: false, cpuWorkers: cores, threadsPerCpuWorker: 1 },
    },
    gpuConfig('1 GPU', 1),
    gpuConfig('all GPUs', gpus >= 1 ? gpus : virtualGpus),
  ];
}

export interface BenchOptions {
  discovery: Discovery;
  launcher: Launcher;
  store: Store;
  virtualGpus: number;
  nativeCpu: boolean;
  params?: Record<string, number | string | boolean>;
  repeat?: number;
  warmup?: number;
  backends?: PoolOptions['backends'];
  onProgress?: (msg: string) => void;
  /** The same steps, for the progress tracker: a configuration's workers starting and up (by its index in benchConfigs), and each run's time. */
  onStep?: (step: { type: 'starting' | 'up'; configIndex: number } | { type: 'run'; runId: string } | { type: 'ran'; ms: number }) => void;
  /** Every event of the benchmark's runs on its own pools (the page draws the current run's task stream from them). */
  onEvent?: (e: EngineEvent) => void;
  /** Stops the benchmark: the current run is cancelled, its pool shut down, and `runBenchmark` rejects. */
  signal?: AbortSignal;
  /** The Dask cluster set as the target: adds the 'Dask cluster' configuration. */
  dask?: DaskTarget | null;
}

const stopped = () => new Error('benchmark stopped');

/** Warm-up and timed runs of one configuration; every repetition must give the same digest. */
async function timedRuns(name: string, warmup: number, repeat: number, start: (runId: string) => { result: Promise<RunResult>; cancel(why?: string): void }, opts: Pick<BenchOptions, 'signal' | 'onProgress' | 'onStep'>) {
  const times: number[] = [];
  let digest: string | null = null;
  const backends: Record<string, JsonValue> = {};
  for (let i = 0; i < warmup + repeat; i++) {
    if (opts.signal?.aborted) throw stopped();
    // Named before it starts, so the tracker keeps its events from the first (its 'run' event included).
    const runId = randomUUID();
    opts.onStep?.({ type: 'run', runId });
    const t0 = performance.now();
    const handle = start(runId);
    const cancel = () => handle.cancel('benchmark stopped');
    opts.signal?.addEventListener('abort', cancel);
    const r = await handle.result.finally(() => opts.signal?.removeEventListener('abort', cancel));
    const ms = performance.now() - t0;
    if (opts.signal?.aborted) throw stopped();
    if (r.status !== 'finished') throw new Error(`${name}: run ${r.status}: ${r.error ?? ''}`);
    const d = await runDigest(r);
    if (digest !== null && d !== digest) throw new Error(`${name}: repetitions disagree (digest ${digest.slice(0, 12)} then ${d.slice(0, 12)})`);
    digest = d;
    for (const w of r.stats.workers) for (const [b, n] of Object.entries(w.backends)) backends[b] = ((backends[b] as number | undefined) ?? 0) + n;
    if (i >= warmup) times.push(ms);
    opts.onStep?.({ type: 'ran', ms });
    opts.onProgress?.(`${name}: ${i < warmup ? 'warm-up' : `repetition ${i - warmup + 1}/${repeat}`} ${ms.toFixed(0)} ms`);
  }
  return { times, digest, backends };
}

export async function runBenchmark(doc: unknown, opts: BenchOptions): Promise<BenchmarkRecord> {
  const wf = validateWorkflow(doc, opts.params ?? {});
  const repeat = opts.repeat ?? 3;
  const warmup = opts.warmup ?? 1;
  const configs: BenchmarkConfigInput[] = [];
  const planned = benchConfigs(opts.discovery, opts.virtualGpus, opts.nativeCpu);
  for (const [index, c] of planned.entries()) {
    if (opts.signal?.aborted) throw stopped();
    if (!c.available || !c.pool) {
      configs.push({ name: c.name, available: false, unavailableReason: c.reason ?? 'unavailable', virtual: c.virtual, workers: 0, times: [] });
      continue;
    }
    opts.onProgress?.(`${c.name}${c.virtual ? ' (virtual)' : ''}: starting workers`);
    opts.onStep?.({ type: 'starting', configIndex: index });
    const engine = new Engine(opts.discovery, { ...c.pool, launcher: opts.launcher, backends: opts.backends });
    // A configuration with GPUs plans its GPU workers per GPU as `gpuflow run` and serve do
    // (main/engine/gpu-sharing.ts: k for a search of small GPU trials), before its pool starts; a
    // workflow without a search is not compiled for it.
    if (c.pool.useGpus && wf.doc.nodes.some((n) => n.op === 'search')) {
      const sharing = planGpuSharing(compileWorkflow(wf), { useGpus: true, backends: opts.backends });
      if (sharing) engine.pool.shareGpus(sharing);
    }
    const onEvent = opts.onEvent;
    const unsubscribe = onEvent ? engine.bus.subscribe((e) => {
          if ('runId' in e) onEvent(e);
        }) : () => undefined;
    try {
      await engine.start();
      opts.onStep?.({ type: 'up', configIndex: index });
      const { times, digest, backends } = await timedRuns(c.name, warmup, repeat, (runId) => engine.run(wf, runId), opts);
      configs.push({ name: c.name, available: true, virtual: c.virtual, workers: engine.pool.ready.length, times, digest, backends });
    } finally {
      unsubscribe();
      await engine.shutdown();
    }
  }
  const dask = opts.dask;
  if (dask) {
    // Compiled for the cluster's workers; each repetition is a whole Dask run (graph submitted, results back).
    const graph = compileWorkflow(wf, dask.compileOptions);
    opts.onStep?.({ type: 'starting', configIndex: planned.length });
    opts.onStep?.({ type: 'up', configIndex: planned.length });
    const { times, digest, backends } = await timedRuns('Dask cluster', warmup, repeat, (runId) => dask.run(graph, runId), opts);
    configs.push({ name: 'Dask cluster', available: true, virtual: false, workers: dask.currentWorkers.length, times, digest, backends });
  }
  const version = opts.store.saveWorkflowVersion(wf.doc as WorkflowDoc);
  const machine = machineFingerprint(localMachineInfo(opts.discovery.gpus.map((g) => ({ name: g.name, memoryMiB: g.memoryTotalMiB }))));
  return opts.store.saveBenchmark({ workflowHash: version.hash, machine, params: (wf.doc.params ?? {}) as Record<string, JsonValue>, warmup, repetitions: repeat, configs });
}

/** The configurations' names in the order runBenchmark runs them, and which will run (for the progress tracker). */
export function plannedConfigs(opts: Pick<BenchOptions, 'discovery' | 'virtualGpus' | 'nativeCpu' | 'dask'>): { names: string[]; available: boolean[] } {
  const cs = benchConfigs(opts.discovery, opts.virtualGpus, opts.nativeCpu);
  const names: string[] = cs.map((c) => (c.virtual ? `${c.name} (virtual)` : c.name));
  const available = cs.map((c) => c.available && c.pool !== undefined);
  if (opts.dask) {
    names.push('Dask cluster');
    available.push(true);
  }
  return { names, available };
}
