/**
 * One trial as the worker sees it: the model to build, its seed, the epochs to reach, and what it
 * reports back. Crosses the main -> worker boundary inside a `trial` task (common/tasks.ts), so it
 * has a zod schema and a parser that names bad fields.
 *
 * A model node gives the base settings; a search overrides some of them per trial with the
 * params it draws (`learningRate`, `optimizer`, `batchSize`, `dropout`, `activation`, `layers`,
 * `units`, `l2`): modelSpecFromParams merges and checks them.
 */
import * as z from 'zod';
import { formatIssues } from './space';
import type { TrialParams } from './types';

export type ModelKind = 'linear' | 'logistic' | 'mlp';
export type Activation = 'relu' | 'tanh' | 'sigmoid' | 'elu';
export type OptimizerName = 'sgd' | 'adam' | 'rmsprop';
export type Task = 'classification' | 'regression';
/** Validation metrics. Scores negate the losses so that higher is always better. */
export type MetricName = 'accuracy' | 'log-loss' | 'mse' | 'r2';

export interface ModelSpec {
  /** linear: regression, one dense unit; logistic: classification, one dense layer; mlp: either. */
  kind: ModelKind;
  /** Widths of the hidden layers (mlp only). */
  hiddenLayers: number[];
  activation: Activation;
  /** Dropout rate after each hidden layer, in [0, 1). */
  dropout: number;
  learningRate: number;
  optimizer: OptimizerName;
  batchSize: number;
  /** L2 penalty on kernels (0: none). */
  l2: number;
}

export interface TrialSpec {
  trialId: string;
  model: ModelSpec;
  /** Seeds initial weights, batch order and dropout (common/tuning/random.ts). */
  seed: number;
  /** Train until this many epochs in total (resuming from what the trial already has). */
  epochs: number;
  /** The metric whose score the search ranks by. */
  metric: MetricName;
}

export interface EpochRecord {
  trialId: string;
  /** 1-based epoch count after this epoch. */
  epoch: number;
  /** Mean training loss of the epoch. */
  loss: number;
  /** Validation metrics. */
  metrics: Partial<Record<MetricName, number>>;
  /** Validation score of `TrialSpec.metric` (higher is better). */
  score: number;
}

export interface TrialResult {
  trialId: string;
  epochs: number;
  score: number;
  metrics: Partial<Record<MetricName, number>>;
  /** Records of the epochs run by this call only. */
  history: EpochRecord[];
  /** True when shouldStop ended training before `epochs`. */
  stopped: boolean;
  /** The tfjs backend that trained it ('gpuflow-cuda', 'tensorflow', 'wasm', 'cpu'). */
  backend: string;
  /** Why this backend, where a GPU worker chose per trial (worker/kernels/tfjs/backend.ts trialBackend). */
  backendRule?: string;
  /** gpuflow-cuda: kernels that ran on the CPU during this trial, runs per kernel name. */
  cpuFallbacks?: Record<string, number>;
}

export const METRICS_BY_TASK: Record<Task, MetricName[]> = {
  classification: ['accuracy', 'log-loss'],
  regression: ['mse', 'r2'],
};

/** Higher-is-better score of a metric value (scikit-learn's neg_log_loss, neg_mean_squared_error). */
export function scoreOf(metric: MetricName, value: number): number {
  return metric === 'log-loss' || metric === 'mse' ? -value : value;
}

export class TrialSpecError extends Error {
  override name = 'TrialSpecError';
}

const posInt = z.number().int('must be an integer').positive('must be positive');

export const modelSpecSchema = z.strictObject({
  kind: z.enum(['linear', 'logistic', 'mlp']),
  hiddenLayers: z.array(posInt).max(16, 'at most 16 hidden layers'),
  activation: z.enum(['relu', 'tanh', 'sigmoid', 'elu']),
  dropout: z.number().min(0, 'must be >= 0').lt(1, 'must be < 1'),
  learningRate: z.number().positive('must be positive').max(100, 'must be <= 100'),
  optimizer: z.enum(['sgd', 'adam', 'rmsprop']),
  batchSize: posInt,
  l2: z.number().min(0, 'must be >= 0'),
});

export const trialSpecSchema = z.strictObject({
  trialId: z.string().min(1),
  model: modelSpecSchema,
  seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  epochs: posInt,
  metric: z.enum(['accuracy', 'log-loss', 'mse', 'r2']),
});

export function parseTrialSpec(input: unknown, where = 'trial'): TrialSpec {
  const r = trialSpecSchema.safeParse(input);
  if (!r.success) throw new TrialSpecError(formatIssues(where, r.error.issues));
  return r.data;
}

export const DEFAULT_MODEL: Omit<ModelSpec, 'kind'> = {
  hiddenLayers: [16],
  activation: 'relu',
  dropout: 0,
  learningRate: 0.01,
  optimizer: 'adam',
  batchSize: 32,
  l2: 0,
};

const TUNABLE = ['learningRate', 'optimizer', 'batchSize', 'dropout', 'activation', 'layers', 'units', 'l2'] as const;

/**
 * The model a trial trains: `base` (from the model node, defaults filled in) with the search's
 * `params` applied. `layers` and `units` set `hiddenLayers` to `layers` layers of `units` each.
 */
export function modelSpecFromParams(base: Partial<ModelSpec> & { kind: ModelKind }, params: TrialParams, where = 'params'): ModelSpec {
  const merged: Record<string, unknown> = { ...DEFAULT_MODEL, ...base };
  for (const [k, v] of Object.entries(params)) {
    if (!(TUNABLE as readonly string[]).includes(k)) {
      throw new TrialSpecError(`${where}.${k}: not a tunable model parameter (tunable: ${TUNABLE.join(', ')})`);
    }
    if (k !== 'layers' && k !== 'units') merged[k] = v;
  }
  if (params.layers !== undefined || params.units !== undefined) {
    const hidden = merged.hiddenLayers as number[];
    const layers = params.layers ?? hidden.length;
    const units = params.units ?? hidden[0] ?? 16;
    if (typeof layers !== 'number' || !Number.isInteger(layers) || layers < 0)
      throw new TrialSpecError(`${where}.layers: must be a non-negative integer, got ${String(layers)}`);
    if (typeof units !== 'number') throw new TrialSpecError(`${where}.units: must be a number, got ${String(units)}`);
    merged.hiddenLayers = Array.from({ length: layers }, () => units);
  }
  const r = modelSpecSchema.safeParse(merged);
  if (!r.success) throw new TrialSpecError(formatIssues(where, r.error.issues));
  return r.data;
}
