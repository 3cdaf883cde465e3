/**
 * A Dask cluster as a run target: one bridge process, connected to a scheduler address, a
 * `local:N` LocalCluster or `local-cuda`. Workers joining and leaving become the bus's `worker`
 * events (lanes `dask-<name>`); runs go through DaskRun. What a stored run records of its cluster
 * comes from `info()`.
 */
import type { ClusterInfo as ApiClusterInfo } from '../../common/api';
import type { DaskTls, DaskWorker, FromBridge } from '../../common/dask-messages';
import type { JsonValue } from '../../common/store-types';
import type { TaskGraph } from '../../common/tasks';
import type { EventBus } from '../engine/event-bus';
import { Bridge, defaultBridgeLog, type BridgeOptions, type Ready } from './bridge';
import { DaskSetupError } from './interpreter';
import { availableParallelism } from 'node:os';
import { localWorkersOver, parseTarget } from './address';
import { probeScheduler } from './reachable';
import { DaskRun, laneOf } from './run';
import { daskCompileOptions } from './compile-options';
import type { CompileOptions } from '../engine/compile/compile';
import { traceStart } from '../../common/start-trace';
import { takeEarlyBridge } from './early';

/** How long a remote scheduler may take to answer (the CLI must exit within 10 s when it does not). */
export const REMOTE_CONNECT_S = 5;
/** Starting a LocalCluster's worker processes takes longer. */
export const LOCAL_CONNECT_S = 60;
/** How long a run waits while the cluster has no worker, or while none of its tasks starts or finishes, then fails (--dask-wait). */
export const DEFAULT_WAIT_S = 60;

export interface ConnectOptions extends BridgeOptions {
  timeoutS?: number;
  /** Seconds a run waits for a worker on a cluster without any (the bridge's deadline). */
  waitS?: number;
  /** A tls:// scheduler's CA, client certificate and key. */
  tls?: DaskTls;
}

/** What the API shows of a cluster (common/api.ts), plus the bridge's C-ABI library status. */
export interface ClusterInfo extends ApiClusterInfo {
  capi: Ready['capi'];
}

export class DaskTarget {
  private workers = new Map<string, DaskWorker>();
  private memory: Extract<FromBridge, { type: 'memory' }>['workers'] = {};
  private running: DaskRun | null = null;
  private closing = false;
  /** Why the target cannot run any more (the scheduler lost, the bridge gone); null while connected. */
  private lostReason: string | null = null;

  private constructor(
    readonly target: string,
    private readonly bridge: Bridge,
    private readonly ready: Ready,
    private readonly hello: Extract<FromBridge, { type: 'connected' }>,
    private readonly bus: EventBus | null,
    private readonly options: ConnectOptions,
  ) {
    for (const w of hello.workers) this.workers.set(w.name, w);
    bridge.onMessage((m) => this.onMessage(m));
    bridge.onExit((why) => {
      this.lostReason ??= why;
      if (!this.closing) bus?.emit({ type: 'log', level: 'error', message: `Dask cluster ${target}: ${why}` });
    });
    for (const w of hello.workers) this.emitWorker(w, 'up');
  }

  /** Starts a bridge and connects it; every failure is a DaskSetupError whose message names the cause (and the address). */
  static async connect(target: string, bus: EventBus | null, opts: ConnectOptions = {}): Promise<DaskTarget> {
    const t = parseTarget(target);
    const over = localWorkersOver(t, availableParallelism());
    if (over !== null) throw new DaskSetupError('bad-target', over);
    const why = await probeScheduler(t);
    if (why !== null) throw new DaskSetupError('unreachable', `cannot reach the Dask scheduler at ${t}: ${why}`);
    // `gpuflow run` started one at its first lines (./early.ts).
    const { bridge, ready } = await (takeEarlyBridge(t, opts.log ?? defaultBridgeLog) ?? Bridge.start(opts));
    const timeoutS = opts.timeoutS ?? (t.startsWith('local') ? LOCAL_CONNECT_S : REMOTE_CONNECT_S);
    let reply: FromBridge;
    try {
      reply = await bridge.request({ type: 'connect', id: bridge.newId('c'), target: t, timeout_s: timeoutS, wait_s: opts.waitS ?? DEFAULT_WAIT_S, ...(opts.tls ? { tls: opts.tls } : {}) }, ['connected'], (timeoutS + 5) * 1000);
    } catch (e) {
      bridge.kill();
      throw new DaskSetupError('unreachable', `cannot reach the Dask scheduler at ${t}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (reply.type === 'error') {
      if (t.startsWith('local')) await bridge.close(5000);
      else bridge.kill();
      const code = reply.code === 'unreachable' || reply.code === 'version' || reply.code === 'local-cuda-missing' || reply.code === 'no-distributed' ? reply.code : 'bridge';
      const msg = reply.code === 'unreachable' && !reply.message.includes(t) ? `cannot reach the Dask scheduler at ${t}: ${reply.message}` : reply.message;
      throw new DaskSetupError(code, msg);
    }
    if (reply.type !== 'connected') throw new DaskSetupError('bridge', `unexpected reply '${reply.type}' to connect`);
    traceStart('dask-connected');
    return new DaskTarget(t, bridge, ready, reply, bus, opts);
  }

  /** A fresh connection to the same target with the same options (after the scheduler was lost). */
  reconnect(): Promise<DaskTarget> {
    return DaskTarget.connect(this.target, this.bus, this.options);
  }

  private emitWorker(w: DaskWorker, state: 'up' | 'down'): void {
    this.bus?.emit({ type: 'worker', worker: laneOf(w.name), kind: w.gpus.length ? 'gpu' : 'cpu', label: `Dask ${w.name} (${w.host}, ${w.nthreads} threads${w.gpus.length ? `, ${w.gpus.map((g) => g.name).join(', ')}` : ''})`, state, ...(w.pid !== null ? { pid: w.pid } : {}) });
  }

  private onMessage(m: FromBridge): void {
    if (m.type === 'worker') {
      if (m.event === 'added') this.workers.set(m.worker.name, m.worker);
      else this.workers.delete(m.worker.name);
      this.emitWorker(m.worker, m.event === 'added' ? 'up' : 'down');
    } else if (m.type === 'memory') this.memory = m.workers;
    else if (m.type === 'lost') {
      this.lostReason ??= m.message;
      this.bus?.emit({ type: 'log', level: 'error', message: `Dask cluster ${this.target}: ${m.message}` });
    }
  }

  get alive(): boolean {
    return this.bridge.alive;
  }

  /** Whether runs can go here: the bridge runs and the scheduler was not lost. */
  get connected(): boolean {
    return this.lostReason === null && this.bridge.alive;
  }

  /** Resolves when no run is in flight here (a cluster switch lets the running one finish). */
  async idle(): Promise<void> {
    while (this.running) await this.running.result.catch(() => undefined);
  }

  /** The workers as last reported (joins and leaves applied). */
  get currentWorkers(): DaskWorker[] {
    return [...this.workers.values()];
  }

  /** Asks the scheduler for its workers now (the connection test). */
  async refreshWorkers(): Promise<DaskWorker[]> {
    const r = await this.bridge.request({ type: 'workers', id: this.bridge.newId('q') }, ['workers'], 15_000);
    if (r.type === 'error') throw new DaskSetupError('bridge', r.message);
    if (r.type !== 'workers') throw new DaskSetupError('bridge', `unexpected reply '${r.type}'`);
    this.workers = new Map(r.workers.map((w) => [w.name, w]));
    return r.workers;
  }

  memoryOf(name: string) {
    return this.memory[name];
  }

  info(): ClusterInfo {
    return { target: this.target, scheduler: this.hello.scheduler, dashboard: this.hello.dashboard, python: this.ready.python, versions: this.ready.versions, capi: this.ready.capi, workers: this.currentWorkers, connected: this.connected, ...(this.lostReason !== null ? { lost: this.lostReason } : {}) };
  }

  /** What a stored run records of the cluster it ran on. */
  record(): JsonValue {
    const i = this.info();
    return { kind: 'dask', target: i.target, scheduler: i.scheduler, python: i.python, versions: i.versions, workers: i.workers.map((w) => ({ name: w.name, host: w.host, nthreads: w.nthreads, memory_limit: w.memory_limit, gpus: w.gpus.length })) } as unknown as JsonValue;
  }

  /** How workflows compile for this cluster (compile-options.ts): task size bound, GPU coarsening. */
  get compileOptions(): Pick<CompileOptions, 'maxTaskBytes' | 'gpuShare'> {
    return daskCompileOptions(this.target, this.currentWorkers);
  }

  /** Starts a run of `graph` (one at a time per bridge: a second waits for the first). */
  run(graph: TaskGraph, runId: string): DaskRun {
    if (!this.bus) throw new Error('a Dask target without an event bus cannot run');
    const bus = this.bus;
    const gpus = () => new Set(this.currentWorkers.filter((w) => w.gpus.length).map((w) => laneOf(w.name)));
    const r = new DaskRun(runId, graph, this.bridge, bus, gpus);
    const previous = this.running;
    this.running = r;
    const go = () => r.start();
    if (previous) void previous.result.then(go, go);
    else go();
    void r.result.finally(() => {
      if (this.running === r) this.running = null;
    });
    return r;
  }

  /** `fast`: a local cluster is killed, not closed gracefully (the CLI, which exits next). */
  async close(fast = false): Promise<void> {
    this.closing = true;
    for (const w of this.workers.values()) this.emitWorker(w, 'down');
    traceStart('dask-close');
    await this.bridge.close(undefined, fast);
    traceStart('dask-closed');
  }
}
