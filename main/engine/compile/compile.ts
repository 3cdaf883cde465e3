/**
 * The compiler: workflow -> task graph. Nodes are built in dependency order into lazy values
 * (main/engine/ops); elementwise chains and slices fuse into their consumers' block programs, so
 * tasks are emitted only where data must exist: a reduction's chunk step, a materialised array,
 * an opaque op. Tasks no output needs are culled. A task too big for any worker is refused here,
 * before anything allocates.
 */
import { toEmitted, UNKNOWN } from './unknown-sizes';
import type { NodeOutput, Resource, TaskDef, TaskGraph } from '../../../common/tasks';
import { MAX_TASKS } from './limits';
import { WorkflowError } from '../errors';
import { OPS } from '../ops/registry';
import type { BuildContext, DeviceTarget, LazyValue } from '../ops/types';
import type { ValidWorkflow } from '../validate';
import { sizeOf } from '../../../common/arrays';
import { WHOLE_ARRAY_LIMIT } from '../results';
import { isSteps, runInSlices, runToEnd, YIELD_EVERY, type Steps } from '../slices';
import { materializeSteps } from './array-lower';
import { fuseDfSources } from './df-fuse';
import { eachBlockIndex } from './chunks';
import { summaryOutput } from './summary-lower';
import { digestDigitsOf, hasFloat32Lineage } from './precision';
import { traceStart } from '../../../common/start-trace';
import type { GpuShare } from '../ops/types';

export interface CompileOptions {
  /** Largest bytes a single task may touch (the biggest worker's memory limit). */
  maxTaskBytes?: number;
  arrayResource?: Resource;
  /** The run's cuda GPU workers (absent: none): linalg ops take one-task paths when their data fits one (docs/linalg.md). */
  device?: DeviceTarget;
  /** GPU workers, real or virtual, that reductions coarsen chunk tasks for, and their task cap (coarsen.ts); default none. */
  gpuShare?: GpuShare;
  /** Output arrays with more elements are reported as summaries computed on the workers. */
  wholeArrayLimit?: number;
  /** Fuse dataframe sources into their first reader (df-fuse.ts); default true. */
  fuseSources?: boolean;
  /** compileWorkflowAsync stops at its next slice when this aborts (WorkAborted). */
  signal?: AbortSignal;
  /**
   * Record whether the graph read `arrayResource`, `device` or `gpuShare` (compiledAs takes a graph
   * that read none of them for any workers; unwatched, a graph counts as having read them). Getters
   * on the build context do it, and they made the 2 859-task seed's compile about twice as slow
   * here (three times the garbage collection), so only a compile that may be taken for other
   * workers asks: a search's early compile, before its GPU workers per GPU are planned.
   */
  watchWorkers?: boolean;
}

export interface Compiled extends TaskGraph {
  /** Tasks a node-per-chunk graph without fusion would have had, by node. */
  unfusedTasks: number;
  /** Tasks emitted before culling. */
  emittedTasks: number;
  /** What each node's output port holds, by `node.port`: "array int64 (20,)", "scalar float32", "dataframe" (explain shows it). */
  portTypes: Record<string, string>;
}

/** A lazy value's type as explain shows it: kind, NumPy dtype (common/dtype-rules.ts), shape. */
export function describeValue(v: LazyValue): string {
  // An unknown length (a mask selection) reads as Dask shows it: nan.
  if (v.kind === 'array') return `array ${v.dtype} (${v.shape.map((s) => (s === UNKNOWN ? 'nan' : s)).join(', ')}${v.shape.length === 1 ? ',' : ''})`;
  if (v.kind === 'scalar') return `scalar ${v.dtype}`;
  return v.portType;
}

/** Compiles in one synchronous call (tests, tools, `explain`, small documents). */
export function compileWorkflow(wf: ValidWorkflow, opts: CompileOptions = {}): Compiled {
  return runToEnd(compileSteps(wf, opts));
}

/**
 * Compiles in slices of a few ms, letting main's event loop run between them: what serve, the app
 * and the CLI use, since a 100 000-task graph takes seconds to compile (defect D8).
 */
export function compileWorkflowAsync(wf: ValidWorkflow, opts: CompileOptions = {}): Promise<Compiled> {
  return runInSlices(compileSteps(wf, opts), undefined, opts.signal);
}

/** The compiler as cooperative work: yields between tasks of big grids (main/engine/slices.ts). */
export function* compileSteps(wf: ValidWorkflow, opts: CompileOptions = {}): Steps<Compiled> {
  const tasks = new Map<string, TaskDef>();
  const values = new Map<string, Record<string, LazyValue>>();
  const hasOut = new Set(wf.doc.edges.map((e) => e.source));
  const nodeIndex = new Map(wf.doc.nodes.map((n, i) => [n.id, i]));
  const outputs: Record<string, NodeOutput> = {};
  // Nodes with float32 lineage (precision.ts): their outputs' digests keep fewer digits.
  const float32 = new Set<string>();
  const portTypes: Record<string, string> = {};
  let unfused = 0;
  // What the compiler is told of the workers; with watchWorkers, read through getters: a compile
  // that never read it made the graph any other view of the workers would make (compiledAs). An
  // op that spreads its context reads all three, which only ever costs a compile.
  const view = workerView(opts);
  let readWorkers = false;
  // The tasks whose bytes exceeded every task emitted before them: the first task a smaller bound
  // refuses is the first of these over it (compiledAs refuses it as this compile would have).
  const peaks: Peak[] = [];
  let peak = -Infinity;

  for (const id of wf.order) {
    const i = nodeIndex.get(id)!;
    const node = wf.doc.nodes[i];
    const op = OPS.get(node.op)!;
    const inputs: Record<string, LazyValue | undefined> = {};
    for (const e of wf.doc.edges) if (e.target === id) inputs[e.targetPort] = values.get(e.source)?.[e.sourcePort];
    const ctx: BuildContext = {
      nodeId: id,
      params: wf.params.get(id) ?? {},
      inputs,
      usedPorts: new Set(wf.doc.edges.filter((e) => e.source === id).map((e) => e.sourcePort)),
      arrayResource: view.arrayResource,
      device: view.device,
      gpuShare: view.gpuShare,
      // One join builds a flat string; a template literal builds a rope of concatenations, which
      // a million keys kept in the graph pay for twice (the rope's nodes, then its flattening).
      key: (name, idx) => (idx ? [id, '/', name, '(', idx.join(','), ')'] : [id, '/', name]).join(''),
      fail: (field, detail) => {
        throw new WorkflowError(`nodes[${i}].${field}`, detail, id);
      },
      emit: (t) => {
        // The one bound on the whole graph (issue 19): sources check their own counts up front from
        // file metadata; this stops anything else before memory does.
        if (tasks.size >= MAX_TASKS) throw new WorkflowError(`nodes[${i}]`, `the workflow needs more than ${MAX_TASKS} tasks: use larger chunks, blocks or fewer files`, id);
        if (opts.maxTaskBytes !== undefined && t.workBytes > opts.maxTaskBytes) throw taskTooLarge(i, id, t.workBytes, opts.maxTaskBytes);
        if (t.workBytes > peak) peaks.push({ index: i, node: id, workBytes: (peak = t.workBytes) });
        // The op's fresh record is kept as it is (no copy per task): only its node is filled in.
        // One hash lookup, not two: a key already there leaves the size as it was (the compile
        // is then abandoned, so the overwritten entry is never seen).
        const before = tasks.size;
        tasks.set(t.key, Object.assign(toEmitted(t), { node: t.node ?? id }));
        if (tasks.size === before) throw new WorkflowError(`nodes[${i}]`, `internal: duplicate task key ${t.key}`, id);
      },
    };
    if (opts.watchWorkers && !readWorkers) watchReads(ctx, () => (readWorkers = true));
    // Refused before any block is built when the node alone would pass the bound (limits.ts).
    const least = op.minTasks?.(ctx) ?? 0;
    if (tasks.size + least > MAX_TASKS) {
      throw new WorkflowError(`nodes[${i}]`, `the workflow needs more than ${MAX_TASKS} tasks (this node alone at least ${least}): use larger chunks, blocks or fewer files`, id);
    }
    let out: Record<string, LazyValue>;
    try {
      const built = op.build(ctx);
      out = isSteps<Record<string, LazyValue>>(built) ? yield* built : built;
    } catch (e) {
      // Whatever an op's build throws is reported against its node.
      if (e instanceof WorkflowError) throw e;
      throw new WorkflowError(`nodes[${i}]`, e instanceof Error ? e.message : String(e), id);
    }
    values.set(id, out);
    if (hasFloat32Lineage(out, wf.doc.edges.some((e) => e.target === id && float32.has(e.source)))) float32.add(id);
    const digits = digestDigitsOf(float32.has(id));
    for (const [port, v] of Object.entries(out)) portTypes[`${id}.${port}`] = describeValue(v);
    for (const v of Object.values(out)) if (v.kind === 'array') unfused += v.chunks.reduce((n, c) => n * c.length, 1);

    if (!hasOut.has(id)) {
      for (const [port, v] of Object.entries(out)) {
        const name = Object.keys(out).length > 1 ? `${id}.${port}` : id;
        if (v.kind === 'scalar') outputs[name] = { kind: 'scalar', key: v.key, dtype: v.dtype, ...digits };
        else if (v.kind === 'array' && sizeOf(v.shape) > (opts.wholeArrayLimit ?? WHOLE_ARRAY_LIMIT)) outputs[name] = { ...summaryOutput(v, ctx, port), ...digits };
        else if (v.kind === 'array') {
          const m = yield* materializeSteps(v, ctx, `${port}-block`);
          const keys: string[] = [];
          for (const idx of eachBlockIndex(m.chunks)) {
            keys.push(m.block(idx).deps[0]);
            if (keys.length % YIELD_EVERY === 0) yield;
          }
          outputs[name] = { kind: 'array', shape: m.shape, chunks: m.chunks, dtype: m.dtype, keys, ...digits };
        } else if (v.portType === 'dataframe' && Array.isArray(v.meta.columns)) outputs[name] = { kind: 'table', keys: v.keys, columns: v.meta.columns as { name: string; type: string }[] };
        else if (v.report === 'all') outputs[name] = { kind: 'values', keys: v.keys };
        else outputs[name] = { kind: 'value', key: v.keys[0] };
      }
    }
  }
  const emitted = tasks.size;
  if (opts.fuseSources !== false) yield* fuseDfSources(tasks);
  yield* cull(tasks, outputs);
  traceStart('compiled');
  // Each emitted reduction/combine is also a task of the unfused graph.
  const compiled: Compiled = { tasks, outputs, unfusedTasks: unfused + emitted, emittedTasks: emitted, portTypes };
  made.set(compiled, { view: readWorkers || !opts.watchWorkers ? view : null, wholeArrayLimit: opts.wholeArrayLimit, fuseSources: opts.fuseSources !== false, peaks });
  return compiled;
}

/** Makes `ctx`'s view of the workers call `read` when an op reads it (the first read is enough). */
function watchReads(ctx: BuildContext, read: () => void): void {
  for (const k of ['arrayResource', 'device', 'gpuShare'] as const) {
    const value = ctx[k];
    Object.defineProperty(ctx, k, {
      get: () => (read(), value),
      enumerable: true,
      configurable: true,
    });
  }
}

/** A task that emitted more bytes than any before it: its node's index and id, and its bytes. */
interface Peak {
  index: number;
  node: string;
  workBytes: number;
}

/** What a compile was told of the workers, with the defaults filled in (gpus 0: no share, whatever the cap). */
interface WorkerView {
  arrayResource: Resource;
  device: DeviceTarget | undefined;
  gpuShare: GpuShare;
}

function workerView(opts: Pick<CompileOptions, 'arrayResource' | 'device' | 'gpuShare'>): WorkerView {
  const share = opts.gpuShare;
  return { arrayResource: opts.arrayResource ?? 'any', device: opts.device, gpuShare: share && share.gpus > 0 ? share : { gpus: 0, taskElements: 0 } };
}

const sameView = (a: WorkerView, b: WorkerView) =>
  a.arrayResource === b.arrayResource && a.device?.gpus === b.device?.gpus && a.device?.bytes === b.device?.bytes && a.gpuShare.gpus === b.gpuShare.gpus && a.gpuShare.taskElements === b.gpuShare.taskElements;

/**
 * How each graph compileSteps returned was made (kept beside it, not in it: a graph goes into
 * messages and digests). `view`: what it was told of the workers, null when it read none of it.
 */
const made = new WeakMap<Compiled, { view: WorkerView | null; wholeArrayLimit: number | undefined; fuseSources: boolean; peaks: Peak[] }>();

function taskTooLarge(i: number, node: string, workBytes: number, maxTaskBytes: number): WorkflowError {
  return new WorkflowError(`nodes[${i}]`, `a task needs ${formatBytes(workBytes)} but the largest worker may hold ${formatBytes(maxTaskBytes)}: use smaller chunks`, node);
}

/**
 * `compiled` as a compile of its workflow with `opts` would make it, or null when `opts` may change the
 * graph: another resource, device target or GPU coarsening than `compiled` was made for, where its
 * compile read them (a search's trials never do; an array reduction does), or other limits. The
 * bound on task bytes only refuses tasks: the first task a fresh compile would refuse is refused
 * here with its message. So a graph compiled before the workers were known (`gpuflow run --dask`'s
 * check before it connects; a search compiled for one GPU worker per GPU, then planned at several,
 * Engine.precompile) is not compiled again where the workers do not change it.
 */
export function compiledAs(compiled: Compiled, opts: Omit<CompileOptions, 'signal'>): Compiled | null {
  const m = made.get(compiled);
  if (!m || m.wholeArrayLimit !== opts.wholeArrayLimit || m.fuseSources !== (opts.fuseSources !== false)) return null;
  if (m.view && !sameView(m.view, workerView(opts))) return null;
  const max = opts.maxTaskBytes;
  const over = max === undefined ? undefined : m.peaks.find((p) => p.workBytes > max);
  if (over && max !== undefined) throw taskTooLarge(over.index, over.node, over.workBytes, max);
  return compiled;
}

/** Removes tasks that no output needs. */
function* cull(tasks: Map<string, TaskDef>, outputs: Record<string, NodeOutput>): Steps<void> {
  const keep = new Set<string>();
  const stack: string[] = [];
  for (const o of Object.values(outputs)) {
    if ('keys' in o) for (const k of o.keys) stack.push(k);
    else stack.push(o.key);
  }
  let n = 0;
  while (stack.length) {
    if (++n % YIELD_EVERY === 0) yield;
    const k = stack.pop()!;
    if (keep.has(k)) continue;
    keep.add(k);
    const t = tasks.get(k);
    if (t) for (const d of t.deps) stack.push(d);
  }
  // Deleting while iterating a Map is safe: entries not yet visited are still visited.
  for (const k of tasks.keys()) {
    if (!keep.has(k)) tasks.delete(k);
    if (++n % YIELD_EVERY === 0) yield;
  }
}

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}
