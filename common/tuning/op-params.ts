/**
 * Typed task params of the model-tuning ops (task kind 'trial'): one zod schema per op, shared
 * by the compiler in main (main/engine/ops/tuning/ builds each spec with `trialOpSpec`, so a
 * misspelt or missing param is a type error there) and the worker (worker/kernels/tfjs/register.ts
 * registers each handler with `registerTrialOp`, which hands it the params parsed by the same
 * schema; a task that does not match is refused at the boundary with the op and field named).
 *
 * A new tuning op: its schema here, its spec built with `trialOpSpec`, its handler registered
 * with `registerTrialOp` (CONTRIBUTING.md, "Typed task params").
 */
import * as z from 'zod';
import { opTable, type OpOf, type OpParamsOf } from '../op-schemas';
import { dataSpecSchema } from './data-spec';
import { modelSpecSchema, trialSpecSchema } from './trial';

const whole = z.number().int().min(0);
const posInt = z.number().int().positive();
const metric = z.enum(['accuracy', 'log-loss', 'mse', 'r2']);
const scalar = z.union([z.number(), z.string(), z.boolean()]);

/** A SearchSpace as main sends it: already parsed from the user's form (common/tuning/space.ts). */
const distribution = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('choice'), values: z.array(scalar) }),
  z.strictObject({ kind: z.literal('uniform'), low: z.number(), high: z.number() }),
  z.strictObject({ kind: z.literal('loguniform'), low: z.number(), high: z.number() }),
  z.strictObject({ kind: z.literal('randint'), low: z.number(), high: z.number() }),
]);
const space = z.record(z.string(), distribution);

/** A SearchSpec (common/tuning/types.ts) as main sends it, parsed by common/tuning/spec.ts. */
export const searchSpecWireSchema = z.discriminatedUnion('method', [
  z.strictObject({ method: z.literal('grid'), space, epochs: posInt, seed: whole }),
  z.strictObject({ method: z.literal('random'), space, nTrials: posInt, epochs: posInt, seed: whole }),
  z.strictObject({
    method: z.literal('successive-halving'),
    space,
    nInitialParameters: z.union([posInt, z.literal('grid')]),
    nInitialIter: posInt,
    maxIter: posInt.optional(),
    aggressiveness: z.number().gt(1),
    seed: whole,
  }),
  z.strictObject({ method: z.literal('hyperband'), space, maxIter: posInt, aggressiveness: z.number().int().min(2), seed: whole }),
]);

/** The model node's base settings: the kind, and whichever settings the node fixed. */
const baseModel = modelSpecSchema.partial().required({ kind: true });

/** A SearchPlan (common/tuning/types.ts): passed through to the leaderboard's result. */
const plan = z.strictObject({
  method: z.enum(['grid', 'random', 'successive-halving', 'hyperband']),
  nTrials: whole,
  totalEpochs: whole,
  brackets: z.array(
    z.strictObject({
      bracket: whole,
      nModels: whole,
      initialEpochs: whole,
      rungs: z.array(z.strictObject({ trials: whole, epochs: whole })),
      totalEpochs: whole,
    }),
  ),
});

/** What a search's leaderboard and best-model tasks take. */
const summary = z.strictObject({ search: searchSpecWireSchema, metric, plan, node: z.string() });

/** The column types a prediction column can have (a class label's type, or float for regression). */
export const PREDICTION_TYPES = ['int', 'float', 'bool', 'string'] as const;

/** A dataset or split node's compile-time meta (main/engine/ops/tuning/values.ts DatasetMeta). */
const datasetMeta = z.strictObject({
  source: dataSpecSchema.shape.source,
  split: dataSpecSchema.shape.split.optional(),
  task: z.enum(['classification', 'regression']),
  nFeatures: whole,
  nRows: whole,
  rowsEstimated: z.boolean().optional(),
  targetType: z.string().optional(),
});

/** A model node's compile-time meta (values.ts ModelMeta): its base settings and epochs per trial. */
const modelMeta = z.strictObject({ base: baseModel, epochs: posInt });

const SCHEMAS = {
  /** One trial: round 0 carries the trial and its params; later rounds carry the search to replay. */
  'search-trial': z.strictObject({
    base: baseModel,
    metric,
    data: dataSpecSchema,
    bracket: whole,
    round: whole,
    index: whole,
    params: z.record(z.string(), scalar).optional(),
    trial: trialSpecSchema.optional(),
    search: searchSpecWireSchema.optional(),
    /**
     * What of the trained model the output carries (search-graph.ts decides from what reads it):
     * 'resume' weights and optimizer state (a next rung trains on; save_to), 'weights' weights
     * only (a predict reads the best model), 'none' only the metrics (nothing reads the model).
     * Absent: 'resume'.
     */
    keepModel: z.enum(['none', 'weights', 'resume']).optional(),
  }),
  /** Every trial ranked; the best model saved to `saveTo` when given. */
  'search-leaderboard': summary.extend({ saveTo: z.string().min(1).optional() }),
  /** The best trial's packed model. */
  'search-best-model': summary,
  /** A dataset or split node's summary: rows, features, classes per part. */
  'dataset-info': z.strictObject({ data: datasetMeta }),
  /** A model node's settings, returned as its result (when nothing consumes the model). */
  describe: z.strictObject({ model: modelMeta }),
  /** The best model's predictions on a dataset's validation part (or all of it), at most maxRows. */
  predict: z.strictObject({ data: dataSpecSchema, part: z.enum(['validation', 'all']), maxRows: whole }),
  /** The best model applied to a dataframe partition: `column` of `type` added. */
  'predict-table': z.strictObject({ features: z.array(z.string().min(1)).min(1), column: z.string().min(1), type: z.enum(PREDICTION_TYPES) }),
};

/** The tuning ops' table (common/op-schemas.ts): the guard, main's spec builder, the worker's parser. */
export const TRIAL_OP_TABLE = opTable('trial', SCHEMAS);
export const { schemas: TRIAL_OP_PARAMS, has: isTypedTrialOp, spec: trialOpSpec, parse: parseTrialOpParams } = TRIAL_OP_TABLE;
export type TypedTrialOp = OpOf<typeof TRIAL_OP_TABLE>;
export type TrialOpParams<Op extends TypedTrialOp> = OpParamsOf<typeof TRIAL_OP_TABLE, Op>;
