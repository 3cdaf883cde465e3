/**
 * Emits a search as static tasks (the design is in common/tuning/replay.ts):
 *
 *   grid / random        one task per trial, then 'leaderboard'
 *   halving / hyperband  per bracket and round, as many tasks as the plan has trials in that
 *                        rung; task i of round k depends on all of round k - 1 of its bracket,
 *                        replays the decisions and trains the i-th best on from the weights the
 *                        previous round's task sent in its output; then 'leaderboard'
 *
 * Round-0 tasks carry their trial's params and seed in their own params (known before the run,
 * shown in the inspector); later rounds carry the search spec and their (bracket, round, index).
 * Op names say bracket, round and epochs, so `gpuflow explain` lists the plan as task counts per
 * op, e.g. "train b4/r1 →3ep: 27".
 */
import { trialOpSpec, type TrialOpParams } from '../../../../common/tuning/op-params';
import { SearchController } from '../../../../common/tuning/controller';
import { planSearch } from '../../../../common/tuning/plan';
import { staticRounds } from '../../../../common/tuning/replay';
import { modelSpecFromParams, TrialSpecError, type MetricName } from '../../../../common/tuning/trial';
import type { SearchSpec, TrialCommand } from '../../../../common/tuning/types';
import type { BuildContext } from '../types';
import { YIELD_EVERY, type Steps } from '../../slices';
import { dataDeps, DEFAULT_SPLIT, type DatasetMeta, type ModelMeta } from './values';

export interface SearchGraphInput {
  spec: SearchSpec;
  data: DatasetMeta;
  model: ModelMeta;
  metric: MetricName;
  saveTo?: string;
  /** Whether an edge reads the search's best model (a predict node). */
  bestUsed: boolean;
}

type KeepModel = NonNullable<TrialOpParams<'search-trial'>['keepModel']>;

/**
 * What a trial task's output keeps of its model. Every last-round output goes to the leaderboard
 * (and the best-model task), which read only metrics unless the best model is saved (with its
 * optimizer state, as model files are) or predicted with (weights only); a round that a next rung
 * resumes from needs the optimizer state too. At the MNIST-shaped example's size this is 15 MB of
 * base64 a trial, packed, sized and fetched from other workers for nothing (docs/tuning.md).
 */
function keepModel(g: SearchGraphInput, lastRound: boolean): KeepModel {
  if (!lastRound || g.saveTo) return 'resume';
  return g.bestUsed ? 'weights' : 'none';
}

export interface SearchGraph {
  leaderboardKey: string;
  bestModelKey: string;
  trialTasks: number;
}

const KiB = 1024;

/** Yields between trials (main/engine/slices.ts): a search of thousands of trials is seconds of work. */
export function* emitSearchTasks(ctx: BuildContext, g: SearchGraphInput): Steps<SearchGraph> {
  const data = { source: g.data.source, split: g.data.split ?? { ...DEFAULT_SPLIT, ...(g.data.task === 'classification' ? { stratify: true } : {}) } };
  const workBytes = g.data.nRows * (g.data.nFeatures + 1) * 4 * 4 + 4 * KiB * KiB;
  const common = { base: g.model.base, metric: g.metric, data };
  const starts = new SearchController(g.spec).next().filter((c): c is Extract<TrialCommand, { kind: 'start' }> => c.kind === 'start');
  // A table source: every trial task also takes the gathered table (the handler's table input).
  const tableDeps = dataDeps(g.data);
  const finals: string[] = [];
  let trialTasks = 0;
  const halving = g.spec.method === 'successive-halving' || g.spec.method === 'hyperband';
  for (const b of staticRounds(g.spec)) {
    let prev: string[] = [];
    for (const [k, r] of b.rounds.entries()) {
      const op = halving ? `train b${b.bracket}/r${k} →${r.epochs}ep` : `train →${r.epochs}ep`;
      const keys: string[] = [];
      const mine = starts.filter((s) => s.bracket === b.bracket);
      const keep = keepModel(g, k === b.rounds.length - 1);
      for (let i = 0; i < r.tasks; i++) {
        if (i % YIELD_EVERY === YIELD_EVERY - 1) yield;
        const key = halving ? ctx.key(`b${b.bracket}r${k}`, [i]) : ctx.key('trial', [i]);
        let params: TrialOpParams<'search-trial'>;
        if (k === 0) {
          const s = mine[i];
          let model;
          try {
            model = modelSpecFromParams(g.model.base, s.params, `params.space (trial ${s.trialId})`);
          } catch (e) {
            if (e instanceof TrialSpecError) return ctx.fail('params.space', e.message);
            throw e;
          }
          params = { ...common, bracket: b.bracket, round: 0, index: i, params: s.params, trial: { trialId: s.trialId, model, seed: s.seed, epochs: s.epochs, metric: g.metric }, keepModel: keep };
        } else {
          params = { ...common, bracket: b.bracket, round: k, index: i, search: g.spec, keepModel: keep };
        }
        // deal: a trial trains for seconds; a GPU worker still starting gets its share (TaskDef.deal).
        ctx.emit({ key, deps: [...prev, ...tableDeps], spec: trialOpSpec('search-trial', params), resource: 'any', op, outBytes: 64 * KiB, workBytes, deal: true });
        keys.push(key);
      }
      trialTasks += r.tasks;
      prev = keys;
    }
    finals.push(...prev);
  }
  const summary = { search: g.spec, metric: g.metric, plan: planSearch(g.spec), node: ctx.nodeId };
  const leaderboardKey = ctx.key('leaderboard');
  const saveTo = g.saveTo; // checked and resolved by checkPath (search.ts)
  ctx.emit({ key: leaderboardKey, deps: finals, spec: trialOpSpec('search-leaderboard', { ...summary, ...(saveTo ? { saveTo } : {}) }), resource: 'any', op: 'leaderboard', outBytes: 64 * KiB, workBytes: 64 * KiB * (finals.length + 1) });
  const bestModelKey = ctx.key('best-model');
  ctx.emit({ key: bestModelKey, deps: finals, spec: trialOpSpec('search-best-model', summary), resource: 'any', op: 'best model', outBytes: 64 * KiB, workBytes: 64 * KiB * (finals.length + 1) });
  return { leaderboardKey, bestModelKey, trialTasks };
}
