/**
 * The one typed API the renderer uses. `serve` exposes it over HTTP + WebSocket
 * (main/api/http.ts); the Electron preload exposes the same methods over IPC. The renderer codes
 * against this interface only, so both front ends share one code path.
 *
 * HTTP mapping (all JSON; token as `Authorization: Bearer <token>`, or `?token=` on the page URL
 * and the WebSocket URL):
 *   GET  /api/catalog                 catalog()
 *   GET  /api/devices                 devices()
 *   GET  /api/workers                 workers()
 *   POST /api/workers/:id/restart     restartWorker(id)
 *   GET  /api/examples                examples()
 *   POST /api/validate  {doc,params}  validate(doc, params)
 *   POST /api/runs      {doc,params,node?,reuse?}  startRun(doc, params, {node, reuse})   400 {errors: string[]} when invalid
 *                                     (starts at once, concurrently with any other run: for scripts and tests)
 *   POST /api/queue     {doc,params,node?}  enqueueRun(doc, {params, node})   the app's Run: one at a time, in order, reusing cached results
 *   GET  /api/queue                   queue()
 *   DELETE /api/queue/:id             removeQueued(id)           409 when the entry is running (cancel its run)
 *   POST /api/runs/:runId/cancel {reason?}  cancelRun(runId)
 *   GET  /api/runs?status=&workflow=&limit=   history(filter)
 *   GET  /api/runs/:storeId           run(storeId)
 *   GET  /api/runs/:storeId/events    runEvents(storeId)
 *   POST /api/runs/:storeId/replay    replay(storeId)
 *   GET  /api/compare?a=&b=           compare(a, b)
 *   POST /api/bench     {doc,params,repeat,warmup}   startBench(...)
 *   GET  /api/benchmarks?workflow=    benchmarks(workflowHash)
 *   GET  /api/bench/progress          benchProgress()   benchmarks under way (a page that loads re-attaches)
 *   GET  /api/bench/events?bench=<id> benchRunEvents(id) the events so far of the run that benchmark has going on now
 *   POST /api/bench/cancel {benchId}  cancelBench(benchId)
 *   WS   /api/events?since=<seq>|live the ring's events after seq (live: no backlog), then live events,
 *                                     as JSON arrays of messages in order (one array per ~32 ms tick);
 *                                     also {type:'run-result', result} and {type:'bench-result', result}
 */
import type { NodeKindSpec } from './catalog';
import type { DaskWorker } from './dask-messages';
import type { EngineEvent, QueueEntry } from './events';

export type { QueueEntry };
import type { RunResult } from './results';
import type { BenchmarkRecord, RunComparison, RunRecord, RunSummary, StoredEvent } from './store-types';
import type { WorkflowDoc } from './workflow';

export interface DeviceInfo {
  gpus: Array<{ index: number; uuid: string; name: string; memoryTotalMiB: number; memoryUsedMiB: number; utilizationPct: number; pciBusId: string; driverVersion: string }>;
  reason: string | null;
  cpu: { cores: number; model: string; memoryTotalBytes: number; memoryFreeBytes: number };
  backends: Array<{ name: string; available: boolean; reason?: string }>;
}

/** One sample of a worker's use. */
export interface WorkerSample {
  /** Epoch ms. */
  t: number;
  /** Utilisation 0..1: the GPU counter for real GPUs, else the share of task slots busy. */
  util: number;
  /** Share of task slots busy since the previous sample, 0..1 (every kind of worker). */
  busy: number;
  /** Device memory used (GPU counter) or chunk bytes the worker holds (others). */
  memBytes: number;
  /** The worker process's resident memory. */
  rss: number;
}

export interface WorkerInfo {
  id: string;
  kind: 'gpu' | 'cpu' | 'virtual-gpu';
  label: string;
  pid: number | null;
  alive: boolean;
  threads: number;
  memoryLimit: number;
  rss: number;
  heldBytes: number;
  backends: Array<{ name: string; available: boolean; reason?: string }>;
  restarts: number;
  /** Recent samples, oldest first, one a second (main/cluster/worker-sampler.ts): the panel's series. */
  samples: WorkerSample[];
  /** Where `util` comes from: the GPU's own counter (nvidia-smi), or the worker's task activity. */
  utilSource: 'gpu-counter' | 'tasks';
  /** The GPU's total memory in bytes when read from the device, else null. */
  deviceMemory: number | null;
  /** Set when the worker's device is gone (why): it is stopped and will not be restarted. */
  gone?: string;
}

export interface ExampleInfo {
  name: string;
  file: string;
  doc: WorkflowDoc;
}

export type Params = Record<string, number | string | boolean>;

export interface RunResultMessage {
  type: 'run-result';
  /** digest: null unless the run finished (a failed run's partial results have no digest). */
  result: RunResult & { digest: string | null; storeId: number | null };
}

/** The most repetitions and warm-up runs a benchmark takes per configuration (serve refuses more; the view's inputs stop there). */
export const BENCH_MAX_REPEAT = 50;
export const BENCH_MAX_WARMUP = 10;

/**
 * A running benchmark as the Benchmarks view shows it (GET /api/bench/progress, polled while one
 * runs, so a page that loads mid-benchmark sees it too): the configuration and repetition on now,
 * the time so far and an estimate of the time left.
 */
export interface BenchProgress {
  benchId: string;
  workflowName: string;
  /** The configurations to run, in order ('1 CPU core', …), and the index of the one on now. */
  configs: string[];
  configIndex: number;
  /** 'starting': its workers are starting; then its warm-up runs, then its timed repetitions. */
  phase: 'starting' | 'warm-up' | 'timed';
  /** Runs of this configuration finished so far (warm-up ones included), of warmup + repeat. */
  runsDone: number;
  warmup: number;
  repeat: number;
  elapsedMs: number;
  /** Time left, from the mean of the runs so far (this configuration's own once it has one); null before the first run ends. */
  etaMs: number | null;
  /** The last run's time, ms. */
  lastMs: number | null;
  /**
   * The benchmark's latest run (null before its first): the one going on now (its events:
   * benchRunEvents) unless `phase` is 'starting', when it is the run before, over.
   */
  runId: string | null;
}

export interface BenchResultMessage {
  type: 'bench-result';
  benchId: string;
  result: BenchmarkRecord | { error: string };
}

export type StreamMessage = EngineEvent | RunResultMessage | BenchResultMessage;

/** A Dask cluster as the cluster selector shows it (main/dask/target.ts ClusterInfo). */
export interface ClusterInfo {
  target: string;
  scheduler: string;
  dashboard: string | null;
  python: string;
  versions: Record<string, string | null>;
  workers: DaskWorker[];
  /** False once the scheduler was lost (or the bridge ended): the next run reconnects. */
  connected?: boolean;
  /** Why it is no longer connected. */
  lost?: string;
}

/** Where the app's runs go: `target` null is this workstation; `remembered` is kept between sessions. */
export interface ClusterState {
  target: string | null;
  remembered: string | null;
  info: ClusterInfo | null;
}

export interface GpuflowApi {
  catalog(): Promise<NodeKindSpec[]>;
  devices(): Promise<DeviceInfo>;
  workers(): Promise<WorkerInfo[]>;
  restartWorker(id: string): Promise<void>;
  examples(): Promise<ExampleInfo[]>;
  validate(doc: WorkflowDoc, params?: Params): Promise<{ ok: true; tasks: number } | { ok: false; errors: string[] }>;
  /** Starts a run now. `node`: run only that node and what it needs upstream; `reuse`: take unchanged outputs from the result cache (and keep this run's). */
  startRun(doc: WorkflowDoc, params?: Params, opts?: { node?: string; reuse?: boolean }): Promise<{ runId: string; storeId: number | null }>;
  /** Queues a run (reusing cached results); it starts when the queue's previous run ends. Changes arrive as 'queue' events. */
  enqueueRun(doc: WorkflowDoc, opts?: { params?: Params; node?: string }): Promise<QueueEntry>;
  queue(): Promise<QueueEntry[]>;
  /** Removes a queued (not yet running) entry. */
  removeQueued(id: string): Promise<boolean>;
  cancelRun(runId: string): Promise<boolean>;
  history(filter?: { status?: string; workflow?: string; limit?: number }): Promise<RunSummary[]>;
  run(storeId: number): Promise<RunRecord>;
  runEvents(storeId: number): Promise<StoredEvent[]>;
  replay(storeId: number): Promise<{ runId: string; storeId: number | null }>;
  compare(a: number, b: number): Promise<RunComparison>;
  startBench(doc: WorkflowDoc, opts?: { params?: Params; repeat?: number; warmup?: number }): Promise<{ benchId: string }>;
  benchmarks(workflowHash?: string): Promise<BenchmarkRecord[]>;
  /** The benchmarks running now, with their progress. */
  benchProgress(): Promise<BenchProgress[]>;
  /** The events so far of the run a benchmark has going on now (its progress's runId); [] between runs or for an unknown benchmark. */
  benchRunEvents(benchId: string): Promise<EngineEvent[]>;
  /** Stops a running benchmark (its current run is cancelled, nothing is recorded); false if it is not running. */
  cancelBench(benchId: string): Promise<boolean>;
  /** The cluster selector (serve only for now; absent where the front end has no Dask support). */
  cluster?(): Promise<ClusterState>;
  /** Sends the app's runs to a Dask cluster (tcp://host:8786, local:N, local-cuda) or back here (null); remembered. */
  selectCluster?(address: string | null): Promise<ClusterInfo | null>;
  /** Connects to `address` on a separate connection and lists its workers. */
  testCluster?(address: string): Promise<ClusterInfo>;
  /** Live events after `since` (resumes after a reconnect without losing events). Returns an unsubscribe. */
  subscribe(onMessage: (m: StreamMessage) => void, since?: number): () => void;
}
