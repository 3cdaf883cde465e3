/**
 * A GPU worker's first gpuflow-cuda trial, warmed up while its rows are generated. On an H100 the
 * first trial of each worker took 1.0-1.4 s where every later trial of the same size took
 * 0.42-0.55 s (docs/tuning.md): the first of everything (cuBLAS's first gemms, the module's first
 * launch of each kernel, tfjs's and V8's first pass through each op, the device allocator
 * growing) fell on that trial, after the 0.55-0.65 s the rows take to fill. The fill runs on
 * libuv's threads (native/philox-fill.ts), so the JS thread is idle meanwhile: here it trains a
 * throwaway model of the trial's architecture for WARMUP_BATCHES batches on device rows of the
 * trial's shapes, runs a validation pass once, and frees all of it, while the rows fill.
 *
 * The trial's results cannot change: the throwaway model draws its weights and dropout masks
 * from its own seed (WARMUP_SEED), each initialiser and dropout layer holds its own generator
 * (models.ts, dropout.ts), and the warm-up's rows are a fixed pattern, not random. What stays
 * behind is only what the trial would make itself: the backend's constant buffers (its batches are
 * the trial's batch size, so the constants are the trial's own) and the kernels' first-use state.
 *
 * Only for a synthetic source (its shape is known before its rows exist, and its rows take long
 * enough to hide the warm-up behind) and a trial the size rule sends to gpuflow-cuda; once per
 * worker process (search-tasks.ts), when GPUFLOW_TRIAL_WARMUP asks for it (off by default).
 */
import * as tf from '@tensorflow/tfjs';
import type { DataSpec } from '../../../common/tuning/data-spec';
import type { ModelSpec, TrialSpec } from '../../../common/tuning/trial';
import { traceStart } from '../../../common/start-trace';
import type { BackendSelection } from './backend';
import { GPUFLOW_CUDA } from './cuda/backend';
import { classificationShape, regressionFeatures } from './datasets';
import { buildModel, type ModelShape } from './models';
import { PREDICT_BATCH, rawOutput } from './predict';
import { backendForTrial } from './trial-backend';
import { trainEpoch } from './train';
import { disposeModel } from './trained-model';

/**
 * Batches the throwaway model trains by default: the first makes the optimizer's state, the rest
 * run the steady path often enough for V8 to optimise it (bench/tuning/first-trial.ts).
 */
export const WARMUP_BATCHES = 32;

/**
 * GPUFLOW_TRIAL_WARMUP: unset or 0 for no warm-up (the default), n for n batches. Off by default:
 * on nvidia-h100-x4 at 4f6f238 (bench/results/tuning-warmup-device-nvidia-h100-x4-4f6f238.jsonl)
 * the 32-batch warm-up did not hide behind the fill (the rows' build took 0.8-1.4 s with it, 0.5-0.7 s
 * without) and the first trial's epoch did not get shorter: the search took as long or longer.
 */
export function warmupBatches(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.GPUFLOW_TRIAL_WARMUP;
  if (v === undefined || v === '') return 0;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 10_000) throw new RangeError(`GPUFLOW_TRIAL_WARMUP must be a number of batches from 0 (off) to 10000, got '${v}'`);
  return n;
}
/** The throwaway model's seed: any fixed number; no trial's generator is shared with it. */
const WARMUP_SEED = 0x5a17;

/** The model shape of a synthetic source's rows, from its spec alone; null for a table source. */
export function syntheticShape(data: DataSpec): ModelShape | null {
  const s = data.source;
  if (s.kind === 'classification') {
    const { features, classes } = classificationShape(s);
    return { task: 'classification', nFeatures: features, nClasses: classes };
  }
  if (s.kind === 'regression') return { task: 'regression', nFeatures: regressionFeatures(s), nClasses: 0 };
  return null;
}

export interface WarmupPlan {
  shape: ModelShape;
  /** GPUFLOW_TRIAL_WARMUP's batches, at most one epoch of the trial's (a small data set's trial must not wait for more). */
  batches: number;
}

/**
 * The warm-up to run before `trial`'s rows are built, or null when none is due: it is off
 * (GPUFLOW_TRIAL_WARMUP=0), the rows are a table's, or the trial trains off gpuflow-cuda.
 */
export function warmupPlan(sel: BackendSelection, trial: TrialSpec, data: DataSpec, env: NodeJS.ProcessEnv = process.env): WarmupPlan | null {
  const asked = warmupBatches(env);
  const shape = syntheticShape(data);
  if (asked === 0 || !shape || data.source.kind === 'table' || backendForTrial(sel, trial, shape).backend !== GPUFLOW_CUDA) return null;
  const trainRows = Math.ceil(data.source.nSamples * (1 - data.split.validationFraction));
  return { shape, batches: Math.min(asked, Math.ceil(trainRows / trial.model.batchSize)) };
}

/**
 * n rows of features and targets in a fixed, varied pattern (an all-equal tensor would be a shared
 * constant, not an upload). The batches gather from them over and over: a full predict batch of
 * rows is enough, and it gives the validation pass its own gemm shapes.
 */
function warmupRows(shape: ModelShape, n: number): { x: Float32Array; y: Float32Array; outputs: number } {
  const x = Float32Array.from({ length: n * shape.nFeatures }, (_, i) => ((i * 7919) % 13) / 13 - 0.5);
  const multi = shape.task === 'classification' && shape.nClasses > 2;
  const outputs = multi ? shape.nClasses : 1;
  const y = new Float32Array(n * outputs);
  for (let r = 0; r < n; r++) {
    if (multi) y[r * outputs + (r % outputs)] = 1;
    else y[r] = shape.task === 'classification' ? r % 2 : (r % 5) / 5;
  }
  return { x, y, outputs };
}

/**
 * Trains a throwaway model of `spec` over rows of `shape` on gpuflow-cuda for `batches`
 * batches (one epoch, the trial's batch size), predicts its rows once (the validation pass), and
 * frees every tensor it made. Never rejects: a warm-up that fails leaves the trial to meet (and
 * report) the same error itself.
 */
export async function warmTrialKernels(spec: ModelSpec, shape: ModelShape, batches = WARMUP_BATCHES): Promise<void> {
  traceStart('worker-trial-warmup-start');
  let model: tf.LayersModel | undefined;
  const made: tf.Tensor[] = [];
  try {
    if (tf.getBackend() !== GPUFLOW_CUDA) await tf.setBackend(GPUFLOW_CUDA);
    model = buildModel(spec, shape, WARMUP_SEED);
    const n = Math.max(spec.batchSize, PREDICT_BATCH);
    const rows = warmupRows(shape, n);
    made.push(tf.tensor2d(rows.x, [n, shape.nFeatures]), tf.tensor2d(rows.y, [n, rows.outputs]));
    const order = Int32Array.from({ length: spec.batchSize * batches }, (_, i) => i % n);
    await trainEpoch({ model }, made[0], made[1], order, spec.batchSize, 1);
    rawOutput(model, rows.x, n, shape.nFeatures);
    traceStart('worker-trial-warmup-done');
  } catch (e) {
    traceStart(`worker-trial-warmup-failed:${e instanceof Error ? e.name : 'error'}`);
  } finally {
    tf.dispose(made);
    if (model) disposeModel(model);
  }
}

/**
 * The rows from `build`, with `warm` run on this thread while they are built: `build` is called
 * first, so its fill is queued off the thread before the warm-up takes the thread.
 */
export async function buildWhileWarming<T>(build: () => Promise<T>, warm: (() => Promise<void>) | undefined): Promise<T> {
  const rows = build();
  if (!warm) return rows;
  const warmed = warm();
  try {
    return await rows;
  } finally {
    // Rows that failed still wait for the warm-up: the next task must not find it using the device.
    await warmed;
  }
}
