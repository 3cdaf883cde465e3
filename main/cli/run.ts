/** `gpuflow run <workflow.json>`: runs a workflow and prints its results. */
import { readFile } from 'node:fs/promises';
import type { ResultValue, RunStats } from '../../common/results';
import type { WarmPool } from './warm-pool';
import type { AttachedResult } from './attach-messages';
import type { Prelaunch } from '../cluster/prelaunch';
import type { EarlyCompile } from '../engine/engine';
import type { Compiled } from '../engine/compile/compile';
import type { TaskGraph } from '../../common/tasks';
import type { GpuSharing } from '../cluster/plan';
import { paramOverrides, UsageError, type Parsed } from './args';
import { progressPrinter } from './progress';
import { traceStart } from '../../common/start-trace';
import { markNothingPending } from './exit-now';

export async function readWorkflowFile(path: string | undefined): Promise<unknown> {
  if (!path) throw new UsageError('which workflow? usage: gpuflow run <workflow.json>');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    // The parser that names a syntax error's line and column (jsonc-parser, a 30 KB chunk, about
    // 1.5 ms to load here) loads only for a file that does not parse: an attached run sends a
    // valid file's document before it would.
    return (await import('../engine/json-text')).parseJsonText(text, path);
  }
}

export function formatResult(v: ResultValue): string {
  if (v.kind === 'scalar') return `${v.value} (${v.dtype})`;
  if (v.kind === 'array') {
    const s = v.summary;
    return `array ${v.shape.join('x')} ${v.dtype}${s ? `: min ${s.min}, max ${s.max}, mean ${s.mean}` : ''}`;
  }
  if (v.kind === 'table') return `table of ${v.rows} rows: ${v.columns.map((c) => `${c.name} (${c.type})`).join(', ')}`;
  return JSON.stringify(v.value);
}

/** What `gpuflow run` prints of a run's result, local or attached (main/cli/attach.ts); its exit code. */
export type PrintedResult = Pick<AttachedResult, 'runId' | 'storeId' | 'status' | 'error' | 'errorNode' | 'digest' | 'results' | 'eventsLost' | 'storeError'> & {
  stats: AttachedResult['stats'] | RunStats;
};

export function reportRun(r: PrintedResult, json: boolean): number {
  const tasksPerWorker = Object.fromEntries(r.stats.workers.map((w) => [w.id, w.tasks]));
  if (json) {
    process.stdout.write(JSON.stringify({ runId: r.runId, storeId: r.storeId, status: r.status, error: r.error, errorNode: r.errorNode, digest: r.digest, results: r.results, tasksPerWorker, stats: r.stats, storeError: r.storeError }, null, 2) + '\n');
  } else {
    if (r.status !== 'finished') process.stderr.write(`run ${r.status}: ${r.error ?? ''}\n`);
    for (const [k, v] of Object.entries(r.results)) process.stdout.write(`${k} = ${formatResult(v)}\n`);
    const workers = r.stats.workers.map((w) => `${w.id}${w.virtual ? ' (virtual)' : ''}: ${w.tasks}`).join(', ');
    process.stdout.write(`${r.stats.tasks} tasks in ${(r.stats.durationMs / 1000).toFixed(2)} s on ${r.stats.workers.length} workers (${workers}); run ${r.storeId ?? r.runId}, digest ${r.digest?.slice(0, 12) ?? '-'}\n`);
  }
  for (const o of r.stats.leftOut ?? []) process.stderr.write(`warning: worker ${o.worker} left out of run ${r.storeId ?? r.runId}: ${o.reason}\n`);
  // The answer is right, but the run's record is not complete: say so, and exit non-zero.
  if (r.eventsLost) process.stderr.write(`warning: run ${r.storeId ?? r.runId}: ${r.eventsLost} (recorded on the run)\n`);
  // The results above are the run's; only its record failed (e.g. the disk filled at the end).
  if (r.storeError) process.stderr.write(`error: run ${r.storeId ?? r.runId} ${r.status}, but storing its record failed: ${r.storeError}\n`);
  return r.status === 'finished' && !r.eventsLost && !r.storeError ? 0 : 1;
}

/**
 * `early`: the workers main/cli.ts forked before this module loaded, for the engine to take over.
 * `pool`: a warm serve found before any fork (main/cli/warm-pool.ts): the run goes there when it
 * can (main/cli/attach.ts), else it runs here.
 */
export async function runCommand(positionals: string[], opts: Parsed['values'], early?: Prelaunch, pool?: WarmPool | null): Promise<number> {
  const doc = await readWorkflowFile(positionals[0]);
  traceStart('workflow-read');
  const params = paramOverrides(opts.param);
  // Where serve reads paths as this process does (same working directory and allowed folders),
  // the document goes to it unvalidated: serve validates it (a refusal is exit 2 with the errors a
  // local run prints, main/cli.ts), and this process loads no op registry (issue 30 item 3).
  const attachAsIs = pool ? (await import('./attach')).samePaths(pool.file, true) : false;
  // A search goes too: serve plans its GPU workers per GPU by the rule this process would
  // (main/engine/gpu-sharing.ts), lending its pool the workers a search of small trials wants.
  if (pool && attachAsIs) {
    const code = await attached(pool, doc, params, opts.json);
    if (code !== null) return code;
  }
  const { namesFiles, validateWorkflow } = await import('../engine/validate');
  // A bad document is refused before the engine starts (workers forked early are killed).
  const wf = validateWorkflow(doc, params);
  traceStart('workflow-valid');
  if (pool && !attachAsIs && !namesFiles(wf)) {
    // Where serve reads paths otherwise, only a workflow that names no file goes there.
    const code = await attached(pool, doc, params, opts.json);
    if (code !== null) return code;
  }
  // An op the Dask workers cannot run is refused before any connection (exit 2, node and op named).
  // The run takes this graph unless the cluster's options change it (compile.ts compiledAs): it is
  // compiled for a local-cuda cluster's GPUs where CUDA_VISIBLE_DEVICES says how many there will be.
  let compiledBare: Compiled | undefined;
  if (opts.dask !== undefined) {
    const [{ compileWorkflow }, { firstRefusal }, { daskCompileOptionsBefore }, { readTarget }] = await Promise.all([import('../engine/compile/compile'), import('../dask/supported'), import('../dask/compile-options'), import('../dask/address')]);
    const target = readTarget(opts.dask);
    compiledBare = compileWorkflow(wf, daskCompileOptionsBefore('target' in target ? target.target : null));
    const refused = firstRefusal(compiledBare);
    if (refused) throw new UsageError(`--dask: ${refused.message}`);
  }
  const search = hasSearchNode(doc);
  // The graph compiles while the workers start (a Dask target compiles for its own workers). The
  // engine's modules load here, not at import: an attached run never needs them.
  const { startService } = await import('./cluster');
  let compiled: EarlyCompile | undefined;
  const svc = await startService(
    opts,
    true,
    early,
    (engine) => {
      if (opts.dask !== undefined) return;
      // A search compiled before the pool started: again only if its GPU workers per GPU changed
      // what the compiler is told of the workers (their count, memory limits).
      compiled = compiled?.forPlan() ?? engine.precompile(wf);
      // A search's precompile ran before the workers existed: their libraries are asked for now
      // (once per worker: a precompile just made asked already).
      engine.warmLibrariesFor(wf);
    },
    // The run starts on the first ready GPU worker; the others join it as they become ready, and
    // the work dealt to them waits for them (a search's trials too: scheduler/placement.ts heldFor).
    opts.dask === undefined && process.env.GPUFLOW_START_ON_FIRST !== '0',
    // A search's GPU workers per GPU come from the engine's early compile, made for one per GPU
    // before the pool forks the others; the run takes that graph (compiled again, while the
    // workers start, only when the sharing changed what the compiler is told: forPlan above).
    opts.dask === undefined && search ? async (engine) => searchSharing((compiled = engine.precompile(wf, { watchWorkers: true })).planned, opts) : undefined,
  );
  try {
    let current: string | null = null;
    const progress = progressPrinter(() => current, { lines: opts.dask !== undefined });
    const unsub = svc.subscribe((e) => {
      progress.onEvent(e);
      // What a Dask run must say at once ("waiting for workers on ...", a lost scheduler).
      if (opts.dask !== undefined && e.type === 'log' && e.level !== 'info') process.stderr.write(`${e.message}\n`);
    });
    const started = await svc.runAsync(doc, { params, early: compiled, compiledBare });
    current = started.runId;
    const stop = () => started.handle.cancel('interrupted (SIGINT)');
    process.once('SIGINT', stop);
    const r = await started.done;
    process.off('SIGINT', stop);
    unsub();
    progress.done();
    return reportRun(r, opts.json);
  } finally {
    // The result is printed and the run stored: the workers' own exit (a GPU worker tears its
    // CUDA context down) is not worth waiting for; they are killed if still there when we exit.
    await svc.close({ detachWorkers: true });
  }
}

/** Runs `doc` on the warm pool and prints its result; null when serve could not take it (run here). */
async function attached(pool: WarmPool, doc: unknown, params: Record<string, number | string | boolean>, json: boolean | undefined): Promise<number | null> {
  const { attachRun, PoolUnavailable } = await import('./attach');
  let current: string | null = null;
  const progress = progressPrinter(() => current);
  try {
    traceStart('attach');
    const r = await attachRun(pool.file, doc, params, progress, (id) => (current = id));
    traceStart('attach-result');
    progress.done();
    const code = reportRun(r, json ?? false);
    // The run was serve's and its answer is printed: the process may exit once that is flushed.
    markNothingPending();
    return code;
  } catch (e) {
    progress.done();
    if (!(e instanceof PoolUnavailable)) throw e;
    process.stderr.write(`gpuflow: running here: ${e.message}\n`);
    return null;
  }
}

/** Whether a document not yet validated has a search node. */
function hasSearchNode(doc: unknown): boolean {
  if (typeof doc !== 'object' || doc === null || !('nodes' in doc) || !Array.isArray(doc.nodes)) return false;
  return doc.nodes.some((n: unknown) => typeof n === 'object' && n !== null && 'op' in n && n.op === 'search');
}

/** GPU workers per GPU for a workflow with a search node, from its compiled trials (main/engine/gpu-sharing.ts). */
async function searchSharing(compiling: Promise<TaskGraph>, opts: Parsed['values']): Promise<GpuSharing | undefined> {
  const [{ planGpuSharing }, { workerOptions }] = await Promise.all([import('../engine/gpu-sharing'), import('./workers')]);
  let graph;
  try {
    graph = await compiling;
  } catch {
    // A workflow that does not compile is reported by the run's own compile, as for any other.
    return undefined;
  }
  return planGpuSharing(graph, workerOptions(opts), process.env);
}
