/**
 * The worker side of a search node's tasks (main/engine/ops/tuning/search-graph.ts):
 *
 *   search-trial        trains one trial: round 0 from its params; later rounds replay the
 *                       bracket's decisions from the previous round's outputs, take the i-th
 *                       trial the controller continues and train it on from its packed weights
 *   search-leaderboard  every trial's outcome, ranked by the replayed controller; saves the best
 *                       model when asked
 *   search-best-model   the best trial's packed model (for predict)
 *
 * Each epoch is streamed through ctx.report, so the UI draws live curves. Tasks keep nothing in
 * the worker: a lost worker's tasks re-run anywhere from their inputs.
 */
import type { JsonValue } from '../../../common/arrays';
import { finalLeaderboard, replaySearch } from '../../../common/tuning/replay';
import { modelSpecFromParams, type TrialSpec } from '../../../common/tuning/trial';
import type { TrialOpParams } from '../../../common/tuning/op-params';
import type { LeaderboardEntry } from '../../../common/tuning/types';
import type { HandlerContext, HandlerResult } from '../../handlers';
import { selectTfjsBackend, type BackendSelection } from './backend';
import { builtOnce } from './built-once';
import { datasetFromArrow, makeClassificationAsync, makeRegressionAsync, type Dataset } from './datasets';
import { fromIPC } from '../df/ipc';
import { packModel, unpackModel } from './pack';
import { saveTrialModel } from './persist';
import { allRecords, modelOf, readOutputs, SearchTaskError, type TrialRecord, type TrialTaskOutput } from './search-record';
import { makeClassificationSplitAsync, trainValidationSplit } from './split';
import type { TrialData } from './train';
import { nameSyntheticRows } from './cuda/device-data';
import { trainOnChosenBackend } from './trial-backend';
import { buildWhileWarming, warmTrialKernels, warmupPlan } from './trial-warmup';
import { backendLabel } from './backend-label';
import { traceStart } from '../../../common/start-trace';

export { backendLabel };
import type { DataSpec } from '../../../common/tuning/data-spec';
import { disposeModel } from './trained-model';
import { TrialModelStore } from './trial-store';

let selection: Promise<BackendSelection> | null = null;

/** The tfjs backend, chosen once per worker process. */
export function workerBackend(ctx: HandlerContext): Promise<BackendSelection> {
  selection ??= selectTfjsBackend({ gpu: ctx.config.kind !== 'cpu' }).then((s) => (traceStart('worker-tfjs-backend'), s));
  return selection;
}

// On the CPU backends (wasm, cpu) the JS thread does the arithmetic, so interleaving a worker's
// concurrent trials gains nothing; one at a time keeps each trial's ops in one uninterrupted run.
// libtensorflow ('tensorflow', the GPU package) computes off the JS thread: there the worker's
// concurrent tasks (4 on a GPU worker) train side by side.
let queue: Promise<unknown> = Promise.resolve();
// gpuflow-cuda queues its kernels from the JS thread too, and trials may switch backends
// (trialBackend), so only libtensorflow's trials run side by side.
function exclusive<T>(sel: BackendSelection, fn: () => Promise<T>): Promise<T> {
  if (sel.backend === 'tensorflow') return fn();
  const next = queue.then(fn, fn);
  queue = next.catch(() => undefined);
  return next;
}

// Promises (built-once.ts): two tasks wanting the same rows while they are built share one build.
const dataCache = new Map<string, Promise<TrialData>>();
// Table data are cached per received table (its IPC bytes), never by spec alone: a task key names
// different rows in another run.
const tableCache = new WeakMap<Uint8Array, Map<string, Promise<TrialData>>>();

/** A task's inputs split into its table input (a table source's gathered rows) and the rest. */
export function splitTableInput<T extends { kind: string; value?: unknown }>(inputs: readonly T[]): { table: Uint8Array | undefined; rest: T[] } {
  let table: Uint8Array | undefined;
  const rest: T[] = [];
  for (const v of inputs) {
    if (v.kind === 'table' && (v as unknown as { ipc?: unknown }).ipc instanceof Uint8Array) table = (v as unknown as { ipc: Uint8Array }).ipc;
    else rest.push(v);
  }
  return { table, rest };
}

/**
 * The rows of a DataSpec: synthetic ones generated here (their fills off the JS thread, so the
 * worker answers heartbeats and cancels meanwhile), a table's from the task's table input.
 */
export async function datasetOf(spec: DataSpec, table: Uint8Array | undefined, where: string): Promise<Dataset> {
  const s = spec.source;
  if (s.kind !== 'table') return s.kind === 'classification' ? makeClassificationAsync(s) : makeRegressionAsync(s);
  if (!table) throw new SearchTaskError(`${where}: the table source '${s.ref}' did not arrive among the task's inputs`);
  return datasetFromArrow(fromIPC(table), s);
}

// The first gpuflow-cuda trial's warm-up (trial-warmup.ts) runs once per worker process.
let warmupDone = false;

/** The warm-up to run while `trial`'s rows are built, if one is still due in this process. */
function warmupFor(sel: BackendSelection, trial: TrialSpec, data: DataSpec): (() => Promise<void>) | undefined {
  if (warmupDone) return undefined;
  const plan = warmupPlan(sel, trial, data);
  if (!plan) return undefined;
  return () => ((warmupDone = true), warmTrialKernels(trial.model, plan.shape, plan.batches));
}

/**
 * A trial's training and validation rows: a synthetic classification set's generated where its
 * split puts them (split.ts makeClassificationSplitAsync: the same bits, no copy), others built,
 * then split.
 */
export async function trialRows(spec: DataSpec, table: Uint8Array | undefined): Promise<TrialData> {
  const s = spec.source;
  if (s.kind === 'classification') return makeClassificationSplitAsync(s, spec.split);
  return trainValidationSplit(await datasetOf(spec, table, 'search-trial'), spec.split);
}

function dataFor(spec: DataSpec, table: Uint8Array | undefined, warm?: () => Promise<void>): Promise<TrialData> {
  const cache = spec.source.kind === 'table' && table ? (tableCache.get(table) ?? tableCache.set(table, new Map()).get(table)!) : dataCache;
  return builtOnce(cache, JSON.stringify(spec), async () => {
    traceStart('worker-trial-data-start');
    const split = await buildWhileWarming(() => trialRows(spec, table), warm);
    nameSyntheticRows(spec, split.train);
    // What each worker spends building the rows before its first trial (docs/tuning.md, the
    // search over four GPUs): the start-up trace shows it beside the worker's start.
    traceStart('worker-trial-data-built');
    return split;
  });
}

interface Chosen {
  trial: TrialSpec;
  bracket: number;
  params: Record<string, string | number | boolean>;
  from: number;
}

export async function searchTrial(p: TrialOpParams<'search-trial'>, inputs: { kind: string; value?: unknown }[], ctx: HandlerContext): Promise<HandlerResult> {
  const where = 'search-trial params';
  const sel = await workerBackend(ctx);
  const { table, rest } = splitTableInput(inputs);
  const outs = readOutputs(rest, 'search-trial');
  const prior = allRecords(outs);
  let chosen: Chosen;
  if (p.round === 0) {
    if (!p.trial || !p.params) throw new SearchTaskError(`${where}: round 0 needs trial and params`);
    chosen = { trial: p.trial, bracket: p.bracket, params: p.params, from: 0 };
  } else {
    if (!p.search) throw new SearchTaskError(`${where}: later rounds need search`);
    const r = replaySearch(p.search, prior, p.bracket);
    if (r.round !== p.round) throw new SearchTaskError(`bracket ${p.bracket}: replay reached round ${r.round}, this task is round ${p.round}`);
    const cmd = r.pending[p.index];
    const value: TrialTaskOutput = { kind: 'skipped', prior };
    if (!cmd) return { value: { kind: 'json', value: value as unknown as JsonValue }, backend: backendLabel(sel) };
    const model = modelSpecFromParams(p.base, cmd.params);
    chosen = { trial: { trialId: cmd.trialId, model, seed: cmd.seed, epochs: cmd.epochs, metric: p.metric }, bracket: cmd.bracket, params: cmd.params, from: cmd.from };
  }
  const { out, label } = await exclusive(sel, () => train(chosen, p.data, table, outs, prior, sel, ctx, p.keepModel ?? 'resume'));
  return { value: { kind: 'json', value: out as unknown as JsonValue }, backend: label };
}

async function train(
  c: Chosen,
  data: DataSpec,
  table: Uint8Array | undefined,
  outs: TrialTaskOutput[],
  prior: TrialRecord[],
  sel: BackendSelection,
  ctx: HandlerContext,
  keep: NonNullable<TrialOpParams<'search-trial'>['keepModel']>,
): Promise<{ out: TrialTaskOutput; label: string }> {
  const store = new TrialModelStore();
  const record: TrialRecord = { trialId: c.trial.trialId, bracket: c.bracket, params: c.params, epochs: c.trial.epochs, score: null, metrics: {} };
  const curve: { epoch: number; loss: number; score: number }[] = [];
  try {
    if (c.from > 0) {
      const packed = modelOf(outs, c.trial.trialId, c.from);
      if (!packed) throw new SearchTaskError(`trial ${c.trial.trialId}: no weights at ${c.from} epochs among this task's inputs`);
      store.set(c.trial.trialId, await unpackModel(packed, `trial ${c.trial.trialId}`));
    }
    const { result: r, label } = await trainOnChosenBackend(sel, c.trial, await dataFor(data, table, warmupFor(sel, c.trial, data)), {
      store,
      onEpoch: (e) => {
        curve.push({ epoch: e.epoch, loss: e.loss, score: e.score });
        ctx.report({ trial: e.trialId, bracket: c.bracket, epoch: e.epoch, epochs: c.trial.epochs, loss: e.loss, metric: c.trial.metric, value: e.metrics[c.trial.metric] ?? null, score: Number.isFinite(e.score) ? e.score : null, backend: sel.backend });
      },
    });
    record.score = r.score;
    record.metrics = r.metrics;
    // Only what a later task reads (main/engine/ops/tuning/search-graph.ts keepModel): packing
    // reads every weight back from the device and the output is sized and fetched whole.
    const m = keep === 'none' ? undefined : store.get(c.trial.trialId);
    return { out: { kind: 'trial', record, prior, model: m ? await packModel(m, { includeOptimizer: keep === 'resume' }) : null, curve }, label };
  } catch (e) {
    // A trial that cannot train leaves the search with its error (docs/tuning.md); the run goes on.
    record.error = e instanceof Error ? e.message : String(e);
    return { out: { kind: 'trial', record, prior, model: null, curve }, label: backendLabel(sel) };
  } finally {
    store.clear();
  }
}

const STATUS_TEXT: Record<string, string> = { halved: 'stopped by successive halving', finished: 'finished', best: 'best', failed: 'failed' };

function ranked<P extends TrialOpParams<'search-best-model'>>(p: P, inputs: { kind: string; value?: unknown }[], op: string) {
  const outs = readOutputs(inputs, op);
  const records = allRecords(outs);
  const { leaderboard, best } = finalLeaderboard(p.search, records);
  return { p, outs, records, leaderboard, best };
}

/** The latest record of each trial (its last round). */
function latest(records: TrialRecord[]): Map<string, TrialRecord> {
  const m = new Map<string, TrialRecord>();
  for (const r of records) {
    const have = m.get(r.trialId);
    if (!have || r.epochs > have.epochs) m.set(r.trialId, r);
  }
  return m;
}

export async function searchLeaderboard(params: TrialOpParams<'search-leaderboard'>, inputs: { kind: string; value?: unknown }[], ctx: HandlerContext): Promise<HandlerResult> {
  const { p, outs, records, leaderboard, best } = ranked(params, inputs, 'search-leaderboard');
  const last = latest(records);
  const rows = leaderboard.map((e: LeaderboardEntry) => {
    const r = last.get(e.trialId);
    return { rank: e.rank, trialId: e.trialId, bracket: e.bracket, params: e.params, epochs: e.epochs, score: e.score, metrics: r?.metrics ?? {}, status: STATUS_TEXT[e.status] ?? e.status, ...(e.error ? { error: e.error } : {}) };
  });
  let savedTo: string | null = null;
  if (p.saveTo && best) {
    const packed = modelOf(outs, best.trialId, best.epochs);
    if (!packed) throw new SearchTaskError(`search-leaderboard: no weights for the best trial ${best.trialId}`);
    await workerBackend(ctx);
    const m = await unpackModel(packed, `trial ${best.trialId}`);
    try {
      await saveTrialModel(m, p.saveTo);
    } finally {
      disposeModel(m.model);
    }
    savedTo = p.saveTo;
  }
  const value = {
    kind: 'search-result',
    strategy: p.search.method,
    metric: p.metric,
    plan: p.plan,
    trials: last.size,
    epochsTrained: [...last.values()].reduce((s, r) => s + (r.error ? 0 : r.epochs), 0),
    bestParams: best?.params ?? null,
    bestScore: best?.score ?? null,
    best: best ? { trialId: best.trialId, params: best.params, score: best.score, epochs: best.epochs } : null,
    leaderboard: rows,
    savedTo,
  };
  return { value: { kind: 'json', value: value as unknown as JsonValue }, backend: 'js' };
}

export async function searchBestModel(params: TrialOpParams<'search-best-model'>, inputs: { kind: string; value?: unknown }[]): Promise<HandlerResult> {
  const { outs, best } = ranked(params, inputs, 'search-best-model');
  if (!best) throw new SearchTaskError('search-best-model: every trial failed, there is no best model');
  const model = modelOf(outs, best.trialId, best.epochs);
  if (!model) throw new SearchTaskError(`search-best-model: no weights for the best trial ${best.trialId}`);
  return { value: { kind: 'json', value: { trialId: best.trialId, params: best.params, score: best.score, model } as unknown as JsonValue }, backend: 'js' };
}
