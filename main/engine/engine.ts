/**
 * The engine: one worker pool, one event bus, and the runs on them. `run()` validates, compiles
 * and starts a workflow, returning a handle to await or cancel; runs are independent and may
 * overlap on the same workers.
 */
import { randomUUID } from 'node:crypto';
import type { RunResult } from '../../common/results';
import type { Discovery } from '../cluster/discovery';
import { WorkerPool, type PoolOptions } from '../cluster/pool';
import { compileWorkflow, compileWorkflowAsync, type Compiled } from './compile/compile';
import { EventBus } from './event-bus';
import { RunController } from './run';
import type { ValidWorkflow } from './validate';

export interface RunHandle {
  runId: string;
  compiled: Compiled;
  result: Promise<RunResult>;
  cancel(reason?: string): void;
  story: RunController['story'];
}

export class Engine {
  readonly bus = new EventBus();
  readonly pool: WorkerPool;
  private readonly runs = new Map<string, RunController>();

  constructor(readonly discovery: Discovery, poolOptions: Omit<PoolOptions, 'discovery'>) {
    this.pool = new WorkerPool({ ...poolOptions, discovery });
    this.pool.listen({
      up: (w) => this.bus.emit({ type: 'worker', worker: w.id, kind: w.config.kind, label: w.config.label, state: 'up', pid: w.pid }),
      down: (w, end) => this.bus.emit({ type: 'worker', worker: w.id, kind: w.config.kind, label: w.config.label, state: 'down', reason: end.reason, pid: w.pid }),
      gone: (w, reason) => this.bus.emit({ type: 'worker', worker: w.id, kind: w.config.kind, label: w.config.label, state: 'gone', reason, pid: w.pid }),
    });
  }

  start(): Promise<void> {
    return this.pool.start();
  }

  /** The largest memory limit among workers: no task may need more. */
  get maxTaskBytes(): number {
    return Math.max(...[...this.pool.workers.values()].map((w) => w.config.memoryLimit));
  }

  compile(wf: ValidWorkflow): Compiled {
    return compileWorkflow(wf, { maxTaskBytes: this.maxTaskBytes });
  }

  /** `compile` in slices of a few ms (main/engine/slices.ts): main's loop keeps serving meanwhile. */
  compileAsync(wf: ValidWorkflow): Promise<Compiled> {
    return compileWorkflowAsync(wf, { maxTaskBytes: this.maxTaskBytes });
  }

  /** Starts a run; `compiled`: the graph from `compileAsync`, so the run does not compile again (synchronously). */
  run(wf: ValidWorkflow, runId: string = randomUUID(), compiled: Compiled = this.compile(wf)): RunHandle {
    const ctl = new RunController(runId, compiled, this.pool, this.bus);
    this.runs.set(runId, ctl);
    void ctl.start();
    const result = ctl.result.finally(() => this.runs.delete(runId));
    return { runId, compiled, result, cancel: (r) => ctl.cancel(r), story: (k) => ctl.story(k) };
  }

  cancel(runId: string): boolean {
    const r = this.runs.get(runId);
    r?.cancel();
    return r !== undefined;
  }

  get activeRuns(): string[] {
    return [...this.runs.keys()];
  }

  async shutdown(): Promise<void> {
    for (const r of this.runs.values()) r.cancel('engine shutting down');
    await this.pool.shutdown();
  }
}
