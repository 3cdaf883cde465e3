/**
 * One run on a Dask cluster: submits the compiled graph to the bridge and turns what comes back
 * into the local engine's events and result. Dask schedules, moves data and recomputes what a
 * lost worker held; this side only translates: bridge `task`/`transfer` events become the bus's
 * `task`/`transfer`/`progress` events on lanes `dask-<worker name>` (so the task stream, node
 * progress and the store work unchanged), and the outputs' wire Values become ChunkValues that
 * the engine's own outputValue assembles, so the digest is computed exactly as for a local run.
 */
import type { ChunkValue } from '../../common/arrays';
import type { FromBridge } from '../../common/dask-messages';
import type { ResultValue, RunResult, WorkerStat } from '../../common/results';
import type { TaskGraph } from '../../common/tasks';
import type { EventBus } from '../engine/event-bus';
import { outputValue } from '../engine/outputs';
import type { Bridge } from './bridge';
import { wireGraph } from './graph';
import { traceStart } from '../../common/start-trace';

/** The lane of a Dask worker in the task stream and the workers panel. */
export const laneOf = (daskName: string): string => `dask-${daskName}`;

/** A cancel the bridge does not confirm within this long ends the run anyway. */
const CANCEL_GRACE_MS = 10_000;

export class DaskRun {
  readonly result: Promise<RunResult>;
  private settle!: (r: RunResult) => void;
  private over = false;
  private readonly t0 = Date.now();
  private readonly done = new Set<string>();
  private readonly byNode = new Map<string, [number, number]>();
  private readonly stats = new Map<string, WorkerStat>();
  private readonly transfers = { count: 0, bytes: 0 };
  /** The outputs as the bridge sent them; converted (./values, with Apache Arrow, loaded then) when the run is done. */
  private sent: Extract<FromBridge, { type: 'result' }>['values'] | null = null;
  private readonly offs: Array<() => void> = [];
  private lastProgress = 0;

  constructor(
    readonly runId: string,
    private readonly graph: TaskGraph,
    private readonly bridge: Bridge,
    private readonly bus: EventBus,
    private readonly gpuWorkers: () => Set<string>,
  ) {
    this.result = new Promise((r) => (this.settle = r));
    for (const t of graph.tasks.values()) {
      const c = this.byNode.get(t.node) ?? [0, 0];
      c[1]++;
      this.byNode.set(t.node, c);
    }
  }

  start(): void {
    this.offs.push(this.bridge.onMessage((m) => this.onMessage(m)));
    this.offs.push(this.bridge.onExit((why) => void this.end('failed', {}, `${why} during the run`)));
    this.bus.emit({ type: 'run', runId: this.runId, state: 'started', tasks: this.graph.tasks.size });
    this.progress(true);
    try {
      const graph = wireGraph(this.graph);
      traceStart('dask-submit');
      this.bridge.send({ type: 'submit', id: this.runId, graph });
    } catch (e) {
      void this.end('failed', {}, `sending the graph to the Dask bridge: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  cancel(reason = 'cancelled by the user'): void {
    if (this.over) return;
    this.bus.emit({ type: 'log', level: 'info', message: `run ${this.runId}: cancelling on the Dask cluster (${reason})` });
    try {
      this.bridge.send({ type: 'cancel', id: this.runId });
    } catch {
      void this.end('cancelled', {}, reason);
      return;
    }
    setTimeout(() => void this.end('cancelled', {}, `${reason} (the Dask bridge did not confirm within ${CANCEL_GRACE_MS / 1000} s)`), CANCEL_GRACE_MS).unref();
    this.cancelReason = reason;
  }

  /** Set by cancel(); a cancel nobody here asked for (the bridge closing) says so. */
  private cancelReason = 'cancelled on the Dask side (its bridge closed)';

  private stat(lane: string): WorkerStat {
    let s = this.stats.get(lane);
    if (!s) {
      s = { id: lane, kind: this.gpuWorkers().has(lane) ? 'gpu' : 'cpu', label: `Dask worker ${lane.slice('dask-'.length)}`, virtual: false, tasks: 0, busyMs: 0, backends: {} };
      this.stats.set(lane, s);
    }
    return s;
  }

  private progress(force = false): void {
    const now = Date.now();
    if (!force && now - this.lastProgress < 100) return;
    this.lastProgress = now;
    this.bus.emit({ type: 'progress', runId: this.runId, done: this.done.size, total: this.graph.tasks.size, byNode: Object.fromEntries(this.byNode) });
  }

  private onMessage(m: FromBridge): void {
    if (this.over) return;
    if ((m.type === 'task' || m.type === 'transfer') && m.run !== this.runId) return;
    if ('id' in m && m.id !== this.runId) return;
    switch (m.type) {
      case 'task': {
        const def = this.graph.tasks.get(m.key);
        if (!def) return;
        const lane = laneOf(m.worker);
        const start = m.start * 1000;
        const end = m.stop * 1000;
        if (m.status === 'erred') {
          this.bus.emit({ type: 'task-error', runId: this.runId, key: m.key, node: def.node, worker: lane, message: m.error ?? 'failed on the Dask worker', cause: this.bus.lastSeq });
          return;
        }
        const backend = m.backend ?? 'dask';
        const s = this.stat(lane);
        s.tasks++;
        s.busyMs += end - start;
        s.backends[backend] = (s.backends[backend] ?? 0) + 1;
        const ev = this.bus.emit({ type: 'task', runId: this.runId, key: m.key, node: def.node, op: def.op, worker: lane, start, end, bytes: m.nbytes ?? 0, backend, cause: this.bus.lastSeq });
        // Dask recomputes what a lost worker held: the same key may run twice, it counts once.
        if (!this.done.has(m.key)) {
          this.done.add(m.key);
          this.byNode.get(def.node)![0]++;
          this.bus.emit({ type: 'task-state', runId: this.runId, key: m.key, node: def.node, from: 'running', to: 'memory', worker: lane, cause: ev.seq });
          this.progress(this.done.size === this.graph.tasks.size);
        }
        return;
      }
      case 'transfer':
        this.transfers.count++;
        this.transfers.bytes += m.bytes;
        this.bus.emit({ type: 'transfer', runId: this.runId, key: m.key, from: laneOf(m.from), to: laneOf(m.to), bytes: m.bytes, start: m.start * 1000, end: m.stop * 1000, cause: this.bus.lastSeq });
        return;
      case 'result':
        traceStart('dask-result');
        this.sent = m.values;
        return;
      case 'notice':
        this.bus.emit({ type: 'log', level: 'warn', message: `run ${this.runId}: ${m.message}` });
        return;
      case 'done':
        traceStart('dask-done');
        void this.complete();
        return;
      case 'cancelled':
        void this.end('cancelled', {}, this.cancelReason);
        return;
      case 'failed': {
        const node = m.node ?? (m.key ? this.graph.tasks.get(m.key)?.node : undefined) ?? undefined;
        const op = m.key ? this.graph.tasks.get(m.key)?.op : undefined;
        const where = node ? `node '${node}'${op ? ` (${op})` : ''}: ` : '';
        void this.end('failed', {}, `${where}${m.message}${m.code === 'unsupported-op' ? ' (not supported on Dask yet; run it on this workstation)' : ''}`, node);
        return;
      }
      case 'error':
        void this.end('failed', {}, `Dask bridge: ${m.message}`);
        return;
      default:
        return;
    }
  }

  private async complete(): Promise<void> {
    const sent = this.sent;
    if (!sent) return this.end('failed', {}, 'the Dask bridge said done without sending the results');
    let values: Map<string, ChunkValue>;
    try {
      const { chunkValueOf } = await import('./values');
      values = new Map(Object.entries(sent).map(([k, v]) => [k, chunkValueOf(v, `output ${k}`)]));
    } catch (e) {
      return this.end('failed', {}, `a result from the Dask bridge: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.progress(true);
    const results: Record<string, ResultValue> = {};
    try {
      for (const [name, out] of Object.entries(this.graph.outputs))
        results[name] = await outputValue(out, (k) => {
          const v = values.get(k);
          return v ? Promise.resolve(v) : Promise.reject(new Error(`the Dask bridge sent no value for ${k}`));
        });
    } catch (e) {
      return this.end('failed', results, `collecting results: ${e instanceof Error ? e.message : String(e)}`);
    }
    return this.end('finished', results);
  }

  private async end(status: RunResult['status'], results: Record<string, ResultValue>, error?: string, node?: string): Promise<void> {
    if (this.over) return;
    this.over = true;
    for (const off of this.offs) off();
    this.bus.emit({ type: 'run', runId: this.runId, state: status, error });
    this.settle({
      runId: this.runId,
      status,
      error,
      errorNode: node,
      results,
      stats: { tasks: this.graph.tasks.size, durationMs: Date.now() - this.t0, workers: [...this.stats.values()], transfers: this.transfers, restarts: 0 },
    });
  }
}
