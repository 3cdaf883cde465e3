/**
 * The search node: dask-ml's GridSearchCV / RandomizedSearchCV / SuccessiveHalvingSearchCV /
 * HyperbandSearchCV over a model node's settings, scored on a dataset's validation rows. Its
 * result is the leaderboard (every trial's params, epochs, score and status; the best params and
 * score; the plan); its 'model' output is the best trial's model, for a predict node.
 */
import { SearchSpaceError } from '../../../../common/tuning/space';
import { parseSearchSpec, SearchSpecError } from '../../../../common/tuning/spec';
import { MAX_SEARCH_TRIALS, searchTrialCount } from '../../../../common/tuning/trial-count';
import { METRICS_BY_TASK, type MetricName } from '../../../../common/tuning/trial';
import type { SearchSpec } from '../../../../common/tuning/types';
import type { OpDef } from '../types';
import { checkPath } from '../../paths';
import { num } from '../arrays-core';
import { emitSearchTasks } from './search-graph';
import { datasetInput, modelInput, type DatasetMeta } from './values';

const STRATEGY = { grid: 'grid', random: 'random', successive_halving: 'successive-halving', hyperband: 'hyperband' } as const;

function allLists(space: unknown): boolean {
  return typeof space === 'object' && space !== null && !Array.isArray(space) && Object.values(space).every((d) => Array.isArray(d) || (typeof d === 'object' && d !== null && 'choice' in d));
}

/** The feature columns the best model reads from a dataframe: a table's own, else synthetic x0, x1, ... */
function modelFeatures(data: DatasetMeta): string[] {
  return data.source.kind === 'table' ? [...data.source.features] : Array.from({ length: data.nFeatures }, (_, j) => `x${j}`);
}

const search: OpDef = {
  spec: {
    op: 'search',
    label: 'Hyperparameter search',
    category: 'model tuning',
    doc: 'Trains many settings of the model as tasks on every worker: grid, random, successive halving or Hyperband (dask-ml semantics). Result: the leaderboard and the best params; output: the best model.',
    inputs: [
      { name: 'data', type: 'dataset' },
      { name: 'model', type: 'model' },
    ],
    outputs: [{ name: 'best', type: 'model' }],
    params: [
      { name: 'strategy', kind: 'enum', options: Object.keys(STRATEGY), default: 'random' },
      { name: 'space', kind: 'json', required: true, doc: 'e.g. {"learningRate": {"loguniform": [0.0001, 0.1]}, "units": [8, 16, 32]}' },
      { name: 'n_iter', kind: 'number', integer: true, min: 1, doc: 'random: trials (default 10); successive halving: initial trials (default: the whole grid, or 10)' },
      { name: 'initial_epochs', kind: 'number', integer: true, min: 1, default: 1, doc: 'successive halving: epochs before the first decision' },
      { name: 'max_iter', kind: 'number', integer: true, min: 1, doc: 'hyperband: most epochs per trial (default 81); successive halving: optional cap' },
      { name: 'aggressiveness', kind: 'number', exclusiveMin: 1, default: 3, doc: 'keep 1/aggressiveness of the trials at each decision (hyperband: an integer)' },
      { name: 'metric', kind: 'enum', options: ['accuracy', 'log-loss', 'mse', 'r2'], doc: 'default: accuracy for classification, r2 for regression' },
      { name: 'seed', kind: 'number', integer: true, min: 0, max: Number.MAX_SAFE_INTEGER, default: 0 },
      { name: 'save_to', kind: 'string', path: 'folder', doc: 'directory to save the best model in (TF.js format: model.json + weights.bin)' },
    ],
  },
  *build(ctx) {
    const data = datasetInput(ctx, 'data');
    const model = modelInput(ctx, 'model');
    const kind = model.base.kind;
    if (kind === 'linear' && data.task !== 'regression') ctx.fail('inputs.model', 'a linear model needs a regression dataset; use logistic or mlp for classes');
    if (kind === 'logistic' && data.task !== 'classification') ctx.fail('inputs.model', 'a logistic model needs a classification dataset; use linear or mlp for numbers');
    const metric = (ctx.params.metric ?? (data.task === 'classification' ? 'accuracy' : 'r2')) as MetricName;
    if (!METRICS_BY_TASK[data.task].includes(metric)) ctx.fail('params.metric', `'${metric}' does not apply to ${data.task}; use one of ${METRICS_BY_TASK[data.task].join(', ')}`);

    const method = STRATEGY[(ctx.params.strategy ?? 'random') as keyof typeof STRATEGY];
    const space = ctx.params.space;
    const seed = num(ctx, 'seed');
    const nIter = ctx.params.n_iter;
    const maxIter = ctx.params.max_iter;
    const input: Record<string, unknown> = { method, space, seed };
    if (method === 'grid') input.epochs = model.epochs;
    if (method === 'random') Object.assign(input, { nTrials: nIter ?? 10, epochs: model.epochs });
    if (method === 'successive-halving') {
      Object.assign(input, { nInitialParameters: nIter ?? (allLists(space) ? 'grid' : 10), nInitialIter: num(ctx, 'initial_epochs'), aggressiveness: num(ctx, 'aggressiveness') });
      if (maxIter !== undefined) input.maxIter = maxIter;
    }
    if (method === 'hyperband') Object.assign(input, { maxIter: maxIter ?? 81, aggressiveness: num(ctx, 'aggressiveness') });
    let spec: SearchSpec;
    try {
      spec = parseSearchSpec(input, 'params');
    } catch (e) {
      if (!(e instanceof SearchSpecError || e instanceof SearchSpaceError)) throw e;
      const m = /^params\.?([A-Za-z_]*)[^:]*: ([\s\S]*)$/.exec(e.message);
      return ctx.fail(m && m[1] ? `params.${m[1]}` : 'params', m ? e.message.replace(/^params\.?/, '') : e.message);
    }
    const trials = searchTrialCount(spec);
    if (trials > MAX_SEARCH_TRIALS) {
      // Named by the param that sets the count, so the person knows what to lower.
      const field = method === 'grid' || (method === 'successive-halving' && nIter === undefined) ? 'params.space' : method === 'hyperband' ? 'params.max_iter' : 'params.n_iter';
      return ctx.fail(field, `the search would train ${trials} models, more than ${MAX_SEARCH_TRIALS} (the limit per search node): ${method === 'hyperband' ? 'use a smaller max_iter' : method === 'grid' ? 'use fewer values, or a random search with n_iter' : 'use a smaller n_iter'}`);
    }
    // Through the one path policy (issue 19: save_to used to write wherever it was pointed).
    const saveTo = typeof ctx.params.save_to === 'string' && ctx.params.save_to !== '' ? checkPath(ctx.params.save_to, 'params.save_to', ctx) : undefined;
    const g = yield* emitSearchTasks(ctx, { spec, data, model, metric, saveTo, bestUsed: ctx.usedPorts.has('best') });
    return {
      best: { kind: 'opaque', portType: 'model', keys: [g.leaderboardKey, g.bestModelKey], meta: { bestModelKey: g.bestModelKey, task: data.task, nFeatures: data.nFeatures, trialTasks: g.trialTasks, features: modelFeatures(data), ...(data.targetType ? { targetType: data.targetType } : {}) } },
    };
  },
};

export const TUNING_SEARCH_OPS: OpDef[] = [search];
