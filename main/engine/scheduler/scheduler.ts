/**
 * The scheduler core: a pure, synchronous state machine for one run. Stimuli in (`handle`),
 * instructions out; no processes, timers or I/O, so tests drive it with plain objects.
 * The async shell (main/engine/run.ts) turns instructions into worker messages and events.
 *
 * Placement: a ready task goes, in static priority order (scheduler/order.ts), to a worker that
 * offers its resource and has a free slot, preferring the worker that already holds the most
 * bytes of its inputs (data locality), then the least loaded. Inputs held elsewhere are fetched
 * by the worker from their holder directly; the fetched copy stays there (`copies`) until the
 * input is released, so it counts as local for the worker's later tasks and is released with it.
 *
 * Tasks with a place (TaskDef.place: matmul's operand and output blocks, TSQR's row blocks) go to the
 * worker owning them (placement.ts, SUMMA-like owner computes). When the owner has no free slot
 * they wait for it (parked on it, still ready), unless more than a round of its slots waits there
 * and a grid worker stands idle: that one takes them. So every GPU gets work, and a transient
 * wait for the owner does not turn into moving a block.
 *
 * Tasks whose op marks them `deal` (TaskDef.deal: long, no place, many to a node; a search's
 * trials) are dealt round robin over the grid while GPU workers are still starting (placement.ts
 * heldFor): those dealt to a starting worker are held for it (not taken by the idle ones), so a
 * run starts on the first ready GPU worker and a late one still gets its share of the trials.
 * When it comes they become its parked work; when it is gone they go back to the ready queues.
 * The scheduler does not guess which tasks are long from their kind or resource: chunk programs
 * on the GPU are short, and holding them for a starting worker would only delay them.
 *
 * Example: sum over 4 blocks, split_every 2, two workers A and B. b0..b3 become ready; A takes
 * b0, B takes b1 (two slots each: A also b2, B b3). When b0 and b1 are in memory, combine(0)
 * becomes ready and goes to A or B (equal locality: the less loaded). When combine(0) and
 * combine(1) finish, b0..b3 are released (memory -> done) and the final combine runs.
 */
import type { EngineEvent, TaskState } from '../../../common/events';
import type { NodeOutput, Resource, TaskDef } from '../../../common/tasks';
import type { TaskErrorCode, WorkerKind } from '../../../common/messages';
import { KeyHeap } from './heap';
import { runToEnd, YIELD_EVERY, type Steps } from '../slices';
import { staticPrioritiesSteps } from './order';
import { transition, type HistoryEntry } from './transitions';
import { gridWorkers, heldFor, ownerOf } from './placement';

export interface WorkerSlot {
  id: string;
  kind: WorkerKind;
  slots: number;
}

export type Stimulus =
  | { type: 'worker-added'; id: string; kind: WorkerKind; slots: number }
  /**
   * A planned worker whose process is still starting when the run begins (a GPU worker whose CUDA
   * context is not made yet): the run goes on with the ready ones, and this one keeps its place in
   * the placement grid, so its share waits for it (parked) while the ready workers take it only
   * when idle. It joins with `worker-added`; `worker-removed` with `gone` drops it.
   */
  | { type: 'worker-starting'; id: string; kind: WorkerKind }
  /**
   * `gone`: the worker will not come back (its device is gone); otherwise it may be restarted.
   * `fault`: its process ended by its own fault (an uncaught error, a fatal signal), which counts
   * against the tasks it ran (MAX_CRASHES); a kill from outside does not.
   */
  | { type: 'worker-removed'; id: string; reason: string; gone?: boolean; fault?: boolean }
  /** Workers of the pool already gone when the run starts, told at once so a failure names all. */
  | { type: 'workers-gone'; workers: Array<{ id: string; reason: string }> }
  | { type: 'task-finished'; key: string; worker: string; bytes: number }
  /** `retry`: the cause is gone (e.g. the result cache freed the memory it lacked): run it again. */
  | { type: 'task-erred'; key: string; worker: string; message: string; code?: TaskErrorCode; retry?: boolean }
  | { type: 'cancel'; reason: string };

export type Instruction =
  | { type: 'execute'; worker: string; key: string; deps: Array<{ key: string; holder: string | null }> }
  | { type: 'release'; worker: string; keys: string[] }
  | { type: 'state'; key: string; node: string; from: TaskState; to: TaskState; worker?: string; cause: number }
  | { type: 'finished' }
  | { type: 'failed'; error: string; key?: string; node?: string; cancelled?: boolean };

interface TaskRec {
  def: TaskDef;
  state: TaskState;
  priority: number;
  /** Dependencies not yet in memory. */
  waitingOn: Set<string>;
  dependents: Set<string>;
  /** Workers holding the output. */
  holders: Set<string>;
  /** Workers holding a copy they fetched as an input (released with the output). */
  copies: Set<string>;
  runningOn: string | null;
  /** Times a worker died (or lost its device) while running it. */
  lost: number;
  /** Times a worker process died while running it (not device loss): see MAX_CRASHES. */
  crashes: number;
  history: HistoryEntry[];
}

/** A task whose worker died or lost its device this many times while running it is given up. */
export const MAX_LOST = 12;
/**
 * A task that was placed on a worker each time its process died by its own fault (an uncaught
 * error, a fatal signal: not a kill from outside), this many times, fails its run as a poison task
 * instead of going to the next worker (issue 29: a spec that overflowed the IPC deserializer
 * killed every worker six times over, then every later run hung). Two, not one: a task only
 * queued behind the culprit on one worker is a suspect too, and should not fail the run alone.
 */
export const MAX_CRASHES = 2;

function accepts(kind: WorkerKind, r: Resource): boolean {
  if (r === 'any') return true;
  if (r === 'gpu') return kind === 'gpu' || kind === 'virtual-gpu';
  return kind === 'cpu';
}

export class Scheduler {
  private readonly tasks = new Map<string, TaskRec>();
  private readonly workers = new Map<string, WorkerSlot & { running: Set<string>; heldBytes: number }>();
  /** Workers removed that may come back (restarting), and those that will not, with why. */
  private readonly absent = new Set<string>();
  private readonly gone = new Map<string, string>();
  /** Workers still starting (`worker-starting`; also in `absent`), by kind: grid places held for them. */
  private readonly starting = new Map<string, WorkerKind>();
  private readonly outputKeys: Set<string>;
  /** Ready tasks by resource, lowest static priority first; stale entries are skipped on pop. */
  private readonly ready: Record<Resource, KeyHeap>;
  /** Ready tasks with grid coordinates waiting for their owner's free slot, by owner. */
  private readonly parked = new Map<string, KeyHeap>();
  /** Ready `deal` tasks held for a worker still starting (placement.ts heldFor), by worker. */
  private readonly held = new Map<string, KeyHeap>();
  /** `deal` tasks dealt round robin while workers were starting (heldFor's `seq`). */
  private dealt = 0;
  /** `deal` tasks with no place per node (heldFor's `siblings`), counted when first needed. */
  private dealtOf: Map<string, number> | null = null;
  private readonly prioOf: (k: string) => number;
  private out: Instruction[] = [];
  private cause = 0;
  private over = false;
  private remaining: number;
  private readonly now: () => number;

  /**
   * `preloaded`: tasks whose output some worker already holds (the result cache): they start in
   * memory on that holder, and tasks needed only to compute them start done (not run). Either
   * can still come back: a lost holder sends the task to waiting and its inputs are recomputed.
   */
  constructor(
    tasks: Map<string, TaskDef>,
    outputs: Record<string, NodeOutput>,
    now: () => number = Date.now,
    preloaded?: ReadonlyMap<string, string>,
    /** false from Scheduler.create, which indexes the graph itself, in slices. */
    indexNow = true,
  ) {
    this.now = now;
    this.outputKeys = new Set(Object.values(outputs).flatMap((o) => ('keys' in o ? o.keys : [o.key])));
    const prioOf = (k: string) => this.tasks.get(k)!.priority;
    this.prioOf = prioOf;
    this.ready = { any: new KeyHeap(prioOf), gpu: new KeyHeap(prioOf), cpu: new KeyHeap(prioOf) };
    this.remaining = 0;
    if (indexNow) runToEnd(this.index(tasks, preloaded));
  }

  /**
   * Builds a scheduler in slices (main/engine/slices.ts): indexing a 100 000-task graph (static
   * priorities, task records, dependents) takes about a second, too long for one call on main's
   * loop (defect D8). RunController drives it; `new Scheduler` does the same work at once.
   */
  static *create(tasks: Map<string, TaskDef>, outputs: Record<string, NodeOutput>, now: () => number = Date.now, preloaded?: ReadonlyMap<string, string>): Steps<Scheduler> {
    const s = new Scheduler(tasks, outputs, now, preloaded, false);
    yield* s.index(tasks, preloaded);
    return s;
  }

  private *index(tasks: Map<string, TaskDef>, preloaded?: ReadonlyMap<string, string>): Steps<void> {
    const prio = yield* staticPrioritiesSteps(tasks, [...this.outputKeys].sort());
    let n = 0;
    for (const [key, def] of tasks) {
      this.tasks.set(key, { def, state: 'waiting', priority: prio.get(key) ?? 0, waitingOn: new Set(def.deps), dependents: new Set(), holders: new Set(), copies: new Set(), runningOn: null, lost: 0, crashes: 0, history: [] });
      if (++n % YIELD_EVERY === 0) yield;
    }
    for (const [key, t] of this.tasks) {
      for (const d of t.def.deps) {
        const dep = this.tasks.get(d);
        if (!dep) throw new Error(`task ${key} depends on unknown task ${d}`);
        dep.dependents.add(key);
      }
      if (++n % YIELD_EVERY === 0) yield;
    }
    this.remaining = this.tasks.size;
    if (preloaded?.size) this.preload(preloaded);
  }

  /** Tasks to run are those the outputs reach without passing a preloaded one. */
  private preload(preloaded: ReadonlyMap<string, string>): void {
    const needed = new Set<string>();
    const stack = [...this.outputKeys];
    while (stack.length) {
      const k = stack.pop()!;
      if (needed.has(k)) continue;
      needed.add(k);
      if (!preloaded.has(k)) stack.push(...this.tasks.get(k)!.def.deps);
    }
    const t0 = this.now();
    for (const [key, t] of this.tasks) {
      const holder = preloaded.get(key);
      if (!needed.has(key)) t.state = 'done';
      else if (holder !== undefined) {
        t.state = 'memory';
        t.holders.add(holder);
      } else continue;
      // Not a transition: the task starts there. Its story says why.
      t.history.push({ from: 'waiting', to: t.state, cause: 0, t: t0, worker: holder, reused: true });
      this.remaining--;
    }
    for (const t of this.tasks.values()) if (t.state === 'waiting') for (const d of t.def.deps) if (this.available(d)) t.waitingOn.delete(d);
  }

  /** Tasks that start reused (in memory from the cache, or done because nothing left needs them). */
  reusedTasks(): Array<{ key: string; node: string; held: boolean }> {
    const out: Array<{ key: string; node: string; held: boolean }> = [];
    for (const [key, t] of this.tasks) if (t.history[0]?.reused) out.push({ key, node: t.def.node, held: t.history[0].to === 'memory' });
    return out;
  }

  /** Starts the run: tasks without dependencies become ready. */
  start(cause: number): Instruction[] {
    const out: Instruction[][] = [];
    runToEnd(this.startSteps(cause, (batch) => out.push(batch)));
    return out.flat();
  }

  /**
   * `start` as cooperative work: the instructions go to `sink` a batch at a time (100 000 leaves
   * are 100 000 state changes and events). Its caller must not send stimuli until it has ended.
   */
  *startSteps(cause: number, sink: (batch: Instruction[]) => void): Steps<void> {
    this.cause = cause;
    let n = 0;
    for (const [key, t] of this.tasks) {
      if (t.state === 'waiting' && t.waitingOn.size === 0) this.move(key, 'ready');
      if (++n % YIELD_EVERY === 0) {
        sink(this.flush());
        yield;
      }
    }
    if (this.remaining === 0) this.finish();
    this.place();
    sink(this.flush());
  }

  handle(s: Stimulus, cause: number): Instruction[] {
    this.cause = cause;
    if (this.over && s.type !== 'worker-added' && s.type !== 'worker-removed' && s.type !== 'workers-gone') return this.flush();
    switch (s.type) {
      case 'worker-added':
        // A worker that comes back under a known id is a new process: what the old one held is gone.
        if (this.workers.has(s.id)) this.workerRemoved(s.id);
        this.absent.delete(s.id);
        this.gone.delete(s.id);
        this.starting.delete(s.id);
        this.workers.set(s.id, { id: s.id, kind: s.kind, slots: s.slots, running: new Set(), heldBytes: 0 });
        this.unhold(s.id, (k) => this.parkOn(s.id, k));
        break;
      case 'worker-starting':
        if (this.workers.has(s.id) || this.gone.has(s.id)) break;
        this.absent.add(s.id);
        this.starting.set(s.id, s.kind);
        break;
      case 'worker-removed':
        // A process that ended by its own fault did so under what it ran: each task is a suspect.
        this.workerRemoved(s.id, s.gone ? s.reason : undefined, s.fault ? s.reason : undefined);
        break;
      case 'workers-gone':
        for (const w of s.workers) this.workerRemoved(w.id, w.reason);
        break;
      case 'task-finished':
        this.finished(s.key, s.worker, s.bytes);
        break;
      case 'task-erred': {
        if (s.code === 'device') {
          // The worker's device is gone: as if the worker died under every task it runs (this
          // one included, counted toward MAX_LOST), and it will not come back (the pool stops it).
          this.workerRemoved(s.worker, `device lost: ${s.message}`);
          break;
        }
        const t = this.tasks.get(s.key);
        if (!t || t.state !== 'running' || t.runningOn !== s.worker) break;
        this.workers.get(s.worker)?.running.delete(s.key);
        t.runningOn = null;
        if ((s.code === 'fetch' || s.retry) && ++t.lost < MAX_LOST) {
          // An input's holder died under it: run it again once the input is back.
          this.move(s.key, 'waiting', s.worker);
          this.rewait(s.key);
          break;
        }
        this.move(s.key, 'erred', s.worker);
        this.fail(`node '${t.def.node}': task ${s.key} failed on ${s.worker}: ${s.message}`, s.key, t.def.node);
        break;
      }
      case 'cancel':
        this.fail(`cancelled: ${s.reason}`, undefined, undefined, true);
        break;
    }
    if (!this.over) this.place();
    return this.flush();
  }

  /** Where each task's output is held (for fetching results). */
  holdersOf(key: string): string[] {
    return [...(this.tasks.get(key)?.holders ?? [])];
  }

  stateOf(key: string): TaskState | undefined {
    return this.tasks.get(key)?.state;
  }

  /** A task's history of transitions (its "story"). */
  story(key: string): HistoryEntry[] {
    return [...(this.tasks.get(key)?.history ?? [])];
  }

  counts(): { done: number; total: number; byNode: Record<string, [number, number]> } {
    const byNode: Record<string, [number, number]> = {};
    let done = 0;
    for (const t of this.tasks.values()) {
      const n = (byNode[t.def.node] ??= [0, 0]);
      n[1]++;
      if (t.state === 'memory' || t.state === 'done') {
        n[0]++;
        done++;
      }
    }
    return { done, total: this.tasks.size, byNode };
  }

  get isOver(): boolean {
    return this.over;
  }

  private flush(): Instruction[] {
    const o = this.out;
    this.out = [];
    return o;
  }

  private move(key: string, to: TaskState, worker?: string): void {
    const t = this.tasks.get(key)!;
    const from = t.state;
    const effect = transition(key, from, to, t.history);
    t.state = to;
    t.history.push({ from, to, cause: this.cause, t: this.now(), worker });
    if (effect.enqueue) this.ready[t.def.resource].push(key);
    this.remaining += effect.remaining;
    this.out.push({ type: 'state', key, node: t.def.node, from, to, worker, cause: this.cause });
  }

  private finished(key: string, worker: string, bytes: number): void {
    const t = this.tasks.get(key);
    if (!t || t.state !== 'running' || t.runningOn !== worker) return; // stale (e.g. from a worker declared lost)
    const w = this.workers.get(worker);
    w?.running.delete(key);
    if (w) w.heldBytes += bytes;
    t.runningOn = null;
    t.holders.add(worker);
    // Inputs it fetched stay on that worker until they are released.
    for (const d of t.def.deps) {
      const dt = this.tasks.get(d)!;
      if (dt.state === 'memory' && !dt.holders.has(worker)) dt.copies.add(worker);
    }
    this.move(key, 'memory', worker);
    for (const d of t.dependents) {
      const dt = this.tasks.get(d)!;
      dt.waitingOn.delete(key);
      if (dt.state === 'waiting' && dt.waitingOn.size === 0) this.move(d, 'ready');
    }
    for (const dep of t.def.deps) this.maybeRelease(dep);
    if (this.remaining === 0) this.finish();
  }

  /** Releases a task's output once every dependent is in memory or done, unless it is an output. */
  private maybeRelease(key: string): void {
    const t = this.tasks.get(key);
    if (!t || t.state !== 'memory') return;
    for (const d of t.dependents) {
      const s = this.tasks.get(d)!.state;
      if (s !== 'memory' && s !== 'done') return;
    }
    // Fetched copies go once nothing needs them; an output itself stays where it was made.
    for (const h of t.copies) this.out.push({ type: 'release', worker: h, keys: [key] });
    t.copies.clear();
    if (this.outputKeys.has(key)) return;
    for (const h of t.holders) this.out.push({ type: 'release', worker: h, keys: [key] });
    t.holders.clear();
    this.move(key, 'done');
  }

  /**
   * A worker left: it may come back (restart) unless `goneReason` says it is gone for good.
   * `crash`: why its process ended, when it ended by its own fault (counted against its tasks).
   * A worker the run never saw may be reported too (a pool worker restarting when the run began):
   * the run waits for it as for any restarting one.
   */
  private workerRemoved(id: string, goneReason?: string, crash?: string): void {
    const w = this.workers.get(id);
    if (goneReason !== undefined) {
      this.absent.delete(id);
      this.starting.delete(id);
      if (!this.gone.has(id)) this.gone.set(id, goneReason);
    } else this.absent.add(id);
    // Work held for it (it may have been still starting) goes back to the ready queues.
    this.unhold(id, (k) => this.ready[this.tasks.get(k)!.def.resource].push(k));
    if (!w) return;
    this.workers.delete(id);
    if (this.over) return;
    const lost: string[] = [];
    for (const [key, t] of this.tasks) {
      t.copies.delete(id);
      if (t.holders.delete(id) && t.holders.size === 0 && t.state === 'memory') lost.push(key);
    }
    // Work parked for it goes back to the ready queues.
    const parked = this.parked.get(id);
    this.parked.delete(id);
    for (let k = parked?.pop(); k !== undefined; k = parked?.pop()) {
      const t = this.tasks.get(k)!;
      if (t.state === 'ready') this.ready[t.def.resource].push(k);
    }
    // Tasks running there go back; a task that keeps killing its workers is given up.
    const poison = crash === undefined ? [] : [...w.running].filter((k) => this.tasks.get(k)!.crashes + 1 >= MAX_CRASHES);
    if (poison.length) {
      const t = this.tasks.get(poison[0])!;
      for (const key of poison) this.tasks.get(key)!.crashes++;
      this.fail(
        `node '${t.def.node}': poison task: ${poison.length > 1 ? `tasks ${poison.join(', ')} were` : `task ${poison[0]} was`} running each of the ${MAX_CRASHES} times a worker process died under ${poison.length > 1 ? 'them' : 'it'} (last: ${id}, ${crash}); not sent to another worker`,
        poison[0],
        t.def.node,
      );
      return;
    }
    for (const key of w.running) {
      const t = this.tasks.get(key)!;
      t.runningOn = null;
      t.lost++;
      if (crash !== undefined) t.crashes++;
      if (t.lost >= MAX_LOST) {
        this.move(key, 'erred', id);
        this.fail(`node '${t.def.node}': task ${key} lost its worker ${t.lost} times; giving up`, key, t.def.node);
        return;
      }
      this.move(key, 'waiting', id);
      this.rewait(key);
    }
    for (const key of lost) {
      if (this.needed(key)) {
        this.move(key, 'waiting', id);
        this.rewait(key);
      } else {
        this.move(key, 'done', id);
      }
    }
    // Dependents of lost outputs that were ready must wait again.
    for (const key of lost) {
      for (const d of this.tasks.get(key)!.dependents) {
        const dt = this.tasks.get(d)!;
        if (dt.state === 'ready' && !this.available(key)) {
          this.move(d, 'waiting');
          dt.waitingOn.add(key);
        }
      }
    }
  }

  /** Whether a task's output is still needed: an output, or a dependent not yet finished. */
  private needed(key: string): boolean {
    if (this.outputKeys.has(key)) return true;
    const t = this.tasks.get(key)!;
    for (const d of t.dependents) {
      const s = this.tasks.get(d)!.state;
      if (s !== 'memory' && s !== 'done') return true;
    }
    return false;
  }

  private available(key: string): boolean {
    const t = this.tasks.get(key)!;
    return t.state === 'memory' && t.holders.size > 0;
  }

  /** Recomputes what a waiting task waits on, bringing lost dependencies back first. */
  private rewait(key: string): void {
    const t = this.tasks.get(key)!;
    t.waitingOn.clear();
    for (const d of t.def.deps) {
      if (this.available(d)) continue;
      t.waitingOn.add(d);
      const dt = this.tasks.get(d)!;
      if (dt.state === 'done') {
        this.move(d, 'waiting');
        this.rewait(d);
      }
    }
    if (t.waitingOn.size === 0) this.move(key, 'ready');
  }

  /** The top of a ready heap after dropping entries that are no longer ready. */
  private topReady(h: KeyHeap): string | undefined {
    for (let k = h.peek(); k !== undefined; k = h.peek()) {
      if (this.tasks.get(k)!.state === 'ready') return k;
      h.pop();
    }
    return undefined;
  }

  /**
   * Places ready tasks while some worker has a free slot: each time the lowest-priority ready task
   * among the resources that have a free worker. Cost per call: O(placed x log ready), so a
   * completion among 100 000 ready tasks stays cheap.
   */
  private place(): void {
    if (this.workers.size === 0) {
      // Every worker this run knew is gone and none is restarting: nothing will run the rest.
      if (this.gone.size > 0 && this.absent.size === 0) {
        const k = this.topReady(this.ready.any) ?? this.topReady(this.ready.gpu) ?? this.topReady(this.ready.cpu);
        const node = k === undefined ? undefined : this.tasks.get(k)!.def.node;
        if (k !== undefined) this.move(k, 'erred');
        this.fail(`no worker left to run the work${node === undefined ? '' : ` (node '${node}')`}: ${this.goneNote()}`, k, node);
      }
      return;
    }
    const workers = [...this.workers.values()];
    const resources: Resource[] = ['any', 'gpu', 'cpu'];
    const gpuWorkers = workers.filter((w) => accepts(w.kind, 'gpu'));
    // Workers still starting hold their grid places with no slot: work they own is parked for them.
    const starting = [...this.starting].map(([id, kind]) => ({ id, kind, slots: 0, running: new Set<string>(), heldBytes: 0 }));
    const gpuStarting = starting.some((w) => accepts(w.kind, 'gpu'));
    const candidates = {
      any: workers,
      // GPU work (the fused programs of a run that had GPU workers) goes to the CPU workers once
      // no GPU worker is left (device lost), rather than waiting for none; while one is still
      // starting it waits for it instead.
      gpu: gpuWorkers.length || gpuStarting ? gpuWorkers : workers,
      cpu: workers.filter((w) => accepts(w.kind, 'cpu')),
    } satisfies Record<Resource, typeof workers>;
    const free = (r: Resource) => candidates[r].some((w) => w.running.size < w.slots);
    const gridOf = (r: Resource) => gridWorkers([...candidates[r], ...starting.filter((w) => accepts(w.kind, r))]);
    const grids = { any: gridOf('any'), gpu: gridOf('gpu'), cpu: gridOf('cpu') } satisfies Record<Resource, typeof workers>;
    // A grid worker with nothing to do, not even work parked for it: it may take another's.
    const idle = (r: Resource) => grids[r].find((w) => w.running.size === 0 && w.slots > 0 && !(this.parked.get(w.id) && this.topReady(this.parked.get(w.id)!) !== undefined));
    for (;;) {
      let chosen: Resource | null = null;
      let chosenPrio = Infinity;
      for (const r of resources) {
        const k = this.topReady(this.ready[r]);
        if (k === undefined) continue;
        if (candidates[r].length === 0) {
          // Its workers are still starting: it waits for them.
          if (starting.some((w) => accepts(w.kind, r))) continue;
          const t = this.tasks.get(k)!;
          this.move(k, 'erred');
          this.fail(`node '${t.def.node}': task ${k} needs a ${r} worker and there is none${this.gone.size ? ` (${this.goneNote()})` : ''}`, k, t.def.node);
          return;
        }
        const p = this.tasks.get(k)!.priority;
        if (free(r) && p < chosenPrio) {
          chosen = r;
          chosenPrio = p;
        }
      }
      // Work parked on a worker with a free slot comes first when it is more urgent.
      let parkedOn: (typeof workers)[number] | null = null;
      for (const w of workers) {
        const h = this.parked.get(w.id);
        const k = h && w.running.size < w.slots ? this.topReady(h) : undefined;
        if (k !== undefined && this.tasks.get(k)!.priority < chosenPrio) {
          chosenPrio = this.tasks.get(k)!.priority;
          parkedOn = w;
        }
      }
      if (parkedOn) {
        this.assign(this.parked.get(parkedOn.id)!.pop()!, parkedOn);
        continue;
      }
      if (chosen === null) {
        // Nothing else to run: an idle worker takes what waits parked for a busy one.
        if (!this.steal(workers)) return;
        continue;
      }
      const key = this.ready[chosen].pop()!;
      const t = this.tasks.get(key)!;
      const owner = t.def.place ? ownerOf(t.def.place, grids[chosen]) : null;
      if (owner && owner.running.size < owner.slots) {
        this.assign(key, owner);
        continue;
      }
      if (owner) {
        // Taken by an idle worker only when the owner has more waiting than one round of its slots.
        const thief = (this.parked.get(owner.id)?.size ?? 0) >= owner.slots ? idle(chosen) : undefined;
        if (thief) this.assign(key, thief);
        else this.parkOn(owner.id, key);
        continue;
      }
      const wait = t.def.place || !t.def.deal || !starting.length ? null : heldFor(this.dealt++, this.dealtIn(t.def.node), grids[chosen], (w) => this.starting.has(w.id));
      if (wait) {
        let h = this.held.get(wait.id);
        if (!h) this.held.set(wait.id, (h = new KeyHeap(this.prioOf)));
        h.push(key);
        continue;
      }
      let best: (typeof workers)[number] | null = null;
      let bestScore = -Infinity;
      for (const w of candidates[chosen]) {
        if (w.running.size >= w.slots) continue;
        // Locality first (bytes not moved), then load; GPU workers win ties for 'any' work.
        const score = this.localBytes(t, w.id) * 4 - w.running.size * (t.def.workBytes + 1) + (w.kind === 'gpu' ? 0.5 : 0);
        if (score > bestScore) {
          bestScore = score;
          best = w;
        }
      }
      this.assign(key, best!);
    }
  }

  /** Parks a ready task on `owner` until it has a free slot (or an idle worker takes it). */
  private parkOn(owner: string, key: string): void {
    let h = this.parked.get(owner);
    if (!h) this.parked.set(owner, (h = new KeyHeap(this.prioOf)));
    h.push(key);
  }

  /** How many tasks of `node` are dealt (TaskDef.deal, no place). */
  private dealtIn(node: string): number {
    if (!this.dealtOf) {
      this.dealtOf = new Map();
      for (const t of this.tasks.values()) if (!t.def.place && t.def.deal) this.dealtOf.set(t.def.node, (this.dealtOf.get(t.def.node) ?? 0) + 1);
    }
    return this.dealtOf.get(node) ?? 0;
  }

  /** The ready tasks held for worker `id`, each handed to `to`; the hold ends. */
  private unhold(id: string, to: (key: string) => void): void {
    const h = this.held.get(id);
    this.held.delete(id);
    for (let k = h?.pop(); k !== undefined; k = h?.pop()) if (this.tasks.get(k)!.state === 'ready') to(k);
  }

  /** Bytes of a task's inputs a worker holds (made there, or fetched there for an earlier task). */
  private localBytes(t: TaskRec, worker: string): number {
    let local = 0;
    for (const d of t.def.deps) {
      const dt = this.tasks.get(d)!;
      if (dt.holders.has(worker) || dt.copies.has(worker)) local += dt.def.outBytes;
    }
    return local;
  }

  /** An idle worker takes the most urgent task parked on another (with more than a round of its slots waiting) that it may run; false if none. */
  private steal(workers: Array<WorkerSlot & { running: Set<string> }>): boolean {
    // Only the workers a grid is laid over take placed work (a CPU worker never takes a GPU's).
    const grid = new Set(gridWorkers(workers).map((w) => w.id));
    for (const w of workers) {
      if (w.running.size > 0 || w.slots === 0 || !grid.has(w.id)) continue;
      let from: KeyHeap | null = null;
      let prio = Infinity;
      for (const [owner, h] of this.parked) {
        const ow = this.workers.get(owner);
        const k = owner === w.id || h.size <= (ow?.slots ?? 0) ? undefined : this.topReady(h);
        if (k === undefined) continue;
        const t = this.tasks.get(k)!;
        if (accepts(w.kind, t.def.resource) && t.priority < prio) {
          prio = t.priority;
          from = h;
        }
      }
      if (from) {
        this.assign(from.pop()!, w);
        return true;
      }
    }
    return false;
  }

  private assign(key: string, w: WorkerSlot & { running: Set<string> }): void {
    const t = this.tasks.get(key)!;
    w.running.add(key);
    t.runningOn = w.id;
    this.move(key, 'running', w.id);
    this.out.push({
      type: 'execute',
      worker: w.id,
      key,
      deps: t.def.deps.map((d) => {
        const dt = this.tasks.get(d)!;
        return { key: d, holder: dt.holders.has(w.id) || dt.copies.has(w.id) ? null : ([...dt.holders][0] ?? null) };
      }),
    });
  }

  /** "gone: vgpu1 (device lost: …), gpu0 (…)" for failure messages. */
  private goneNote(): string {
    return `gone: ${[...this.gone].map(([id, why]) => `${id} (${why})`).join(', ')}`;
  }

  private finish(): void {
    if (this.over) return;
    this.over = true;
    this.out.push({ type: 'finished' });
  }

  private fail(error: string, key?: string, node?: string, cancelled = false): void {
    if (this.over) return;
    this.over = true;
    for (const [k, t] of this.tasks) {
      if (t.state === 'waiting' || t.state === 'ready' || t.state === 'running') this.move(k, 'erred', t.runningOn ?? undefined);
    }
    this.out.push({ type: 'failed', error, key, node, cancelled });
  }

  /** Every (worker, keys) still held, for releasing at the end of a run. */
  heldByWorker(): Map<string, string[]> {
    const m = new Map<string, string[]>();
    for (const [key, t] of this.tasks) {
      for (const h of t.holders) m.set(h, [...(m.get(h) ?? []), key]);
      // Fetched copies of outputs are released as they are needed no more (maybeRelease).
      if (!this.outputKeys.has(key)) for (const h of t.copies) if (!t.holders.has(h)) m.set(h, [...(m.get(h) ?? []), key]);
    }
    return m;
  }
}

export type { EngineEvent };
