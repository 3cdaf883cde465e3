/**
 * Trains one trial to a target number of epochs, resumable: successive halving and Hyperband ask
 * for a trial again with a larger budget, and it continues from where it stopped, either from the
 * worker's memory (TrialModelStore, keyed by trial id) or from a model saved on disk
 * (`resumeFrom`). Training the same trial to 3 epochs and then to 9 gives the same weights as
 * training it to 9 at once (cpu backend), because everything random is a function of the trial
 * seed and the epoch number:
 *
 *   weights      glorot-uniform seeded by (seed, layer)        (models.ts)
 *   batch order  permutation seeded by (seed, epoch)           (shuffling is ours; tfjs's
 *                                                               shuffle uses Math.random)
 *   dropout      masks seeded by (seed, epoch, batch)          (dropout.ts)
 *
 * After each epoch the validation set is scored and `onEpoch` gets the training loss and the
 * validation metrics; `shouldStop` is asked before each epoch, so a stop command takes effect
 * within one epoch.
 */
import * as tf from '@tensorflow/tfjs';
import { deriveSeed, permutation, SeedTag } from '../../../common/tuning/random';
import { METRICS_BY_TASK, scoreOf, type EpochRecord, type MetricName, type TrialResult, type TrialSpec } from '../../../common/tuning/trial';
import type { Dataset } from './datasets';
import { startEpoch } from './dropout';
import { accuracy, logLoss, meanSquaredError, r2Score } from './metrics';
import { buildModel, checkModelFitsTask } from './models';
import { loadTrialModel } from './persist';
import { rawOutput, toPrediction } from './predict';
import { fitScaler, scaledFeatures, scaleX, scaleY } from './scaling';
import { disposeModel, MODEL_FORMAT, type TrainedModel } from './trained-model';
import type { TrialModelStore } from './trial-store';
import { GPUFLOW_CUDA, GpuflowCudaBackend } from './cuda/backend';
import { deviceScaledFeatures, trainingTensors, type TrainingTensors } from './cuda/device-data';
import { deviceEpoch } from './cuda/train-step';
import { traceOn, traceStart } from '../../../common/start-trace';

const ownTensors = (t: { x: tf.Tensor; y: tf.Tensor }): TrainingTensors => ({ ...t, release: () => tf.dispose([t.x, t.y]) });

export interface TrialData {
  train: Dataset;
  validation: Dataset;
}

export interface TrainOptions {
  /** Called after every epoch with its loss and validation metrics. */
  onEpoch?: (record: EpochRecord) => void;
  /** Asked before every epoch; true ends training early (the result says `stopped`). */
  shouldStop?: () => boolean;
  /** The worker's trials in memory; the trial is taken from and left in it. */
  store?: TrialModelStore;
  /** A directory saved by saveTrialModel to resume from when the store does not hold the trial. */
  resumeFrom?: string;
}

export class TrainError extends Error {
  override name = 'TrainError';
}

function checkData(spec: TrialSpec, data: TrialData): void {
  const { train, validation } = data;
  if (train.nRows === 0 || validation.nRows === 0) throw new TrainError(`trial ${spec.trialId}: training and validation sets must both have rows`);
  if (train.task !== validation.task) throw new TrainError(`trial ${spec.trialId}: training set is ${train.task} but validation set is ${validation.task}`);
  if (train.nFeatures !== validation.nFeatures) throw new TrainError(`trial ${spec.trialId}: ${train.nFeatures} training features but ${validation.nFeatures} validation features`);
  if (!METRICS_BY_TASK[train.task].includes(spec.metric)) {
    throw new TrainError(`trial ${spec.trialId}: metric '${spec.metric}' does not apply to ${train.task}; use one of ${METRICS_BY_TASK[train.task].join(', ')}`);
  }
  checkModelFitsTask(spec.model, train.task);
}

function sameSpec(a: TrainedModel, spec: TrialSpec): boolean {
  return a.meta.seed === spec.seed && JSON.stringify(a.meta.spec) === JSON.stringify(spec.model);
}

async function obtain(spec: TrialSpec, data: TrialData, opts: TrainOptions): Promise<TrainedModel> {
  let m = opts.store?.get(spec.trialId);
  if (!m && opts.resumeFrom) m = await loadTrialModel(opts.resumeFrom);
  if (m) {
    if (!sameSpec(m, spec)) throw new TrainError(`trial ${spec.trialId}: the model held for it was built from another spec or seed`);
    if (m.meta.nFeatures !== data.train.nFeatures) throw new TrainError(`trial ${spec.trialId}: the model takes ${m.meta.nFeatures} features, the data has ${data.train.nFeatures}`);
    if (m.meta.epochs > spec.epochs) throw new TrainError(`trial ${spec.trialId}: already trained ${m.meta.epochs} epochs, more than the ${spec.epochs} asked`);
    return m;
  }
  const { train } = data;
  const model = buildModel(spec.model, { task: train.task, nFeatures: train.nFeatures, nClasses: train.classes.length }, spec.seed);
  // The steps of a trial's set-up, in the start-up trace (docs/tuning.md, where the fixed part goes).
  traceStart('worker-trial-model-built');
  const scaler = fitScaler(train);
  traceStart('worker-trial-scaler-fitted');
  return {
    model,
    meta: {
      format: MODEL_FORMAT,
      trialId: spec.trialId,
      spec: spec.model,
      seed: spec.seed,
      epochs: 0,
      task: train.task,
      nFeatures: train.nFeatures,
      featureNames: train.featureNames,
      classes: train.classes,
      scaler,
    },
  };
}

/** Validation metrics of the model as it is now. */
export function evaluate(m: TrainedModel, validation: Dataset): Partial<Record<MetricName, number>> {
  const raw = rawOutput(m.model, scaledFeatures(m.meta.scaler, validation), validation.nRows, validation.nFeatures);
  const p = toPrediction(m, raw, validation.nRows);
  if (p.task === 'regression') return { mse: meanSquaredError(validation.y, p.values), r2: r2Score(validation.y, p.values) };
  return { accuracy: accuracy(validation.y, p.probabilities, p.nClasses), 'log-loss': logLoss(validation.y, p.probabilities, p.nClasses) };
}

/** Training targets as the loss wants them: scaled values, p(class 1), or one-hot rows. */
function targetTensor(m: TrainedModel, train: Dataset): tf.Tensor {
  if (m.meta.task === 'regression') return tf.tensor2d(scaleY(m.meta.scaler, train.y), [train.nRows, 1]);
  const k = m.meta.classes.length;
  if (k === 2) return tf.tensor2d(train.y, [train.nRows, 1]);
  return tf.tidy(() => tf.oneHot(tf.tensor1d(train.y, 'int32'), k).toFloat());
}

/**
 * One epoch in our batch order. A loop of trainOnBatch rather than model.fit: fit would shuffle
 * with Math.random (or not at all), and its per-call set-up cost about as much as the epoch
 * itself on small data. Returns the mean training loss over rows, as fit reports it.
 */
export async function trainEpoch(m: Pick<TrainedModel, 'model'>, x: tf.Tensor, y: tf.Tensor, order: Int32Array, batchSize: number, epoch: number, afterFirstBatch?: () => void): Promise<number> {
  startEpoch(m.model, epoch);
  let sum = 0;
  // The epoch's order goes up once and each batch's indices are a slice of it: on the GPU a copy
  // per batch costs more than a launch, and four training processes contend for copies
  // (docs/performance.md).
  const all = tf.tensor1d(order, 'int32');
  // On the GPU the batch losses are summed there and read once (cuda/train-step.ts).
  const device = deviceEpoch(m.model);
  try {
    for (let b = 0; b < order.length; b += batchSize) {
      const n = Math.min(order.length, b + batchSize) - b;
      const idx = tf.slice(all, b, n);
      const xb = tf.gather(x, idx);
      const yb = tf.gather(y, idx);
      try {
        if (device) device.step(xb, yb, n);
        else {
          const loss = await m.model.trainOnBatch(xb, yb);
          sum += (Array.isArray(loss) ? loss[0] : loss) * n;
        }
      } finally {
        tf.dispose([idx, xb, yb]);
      }
      if (b === 0) afterFirstBatch?.();
    }
    if (device) sum = device.finish();
  } finally {
    device?.release();
    all.dispose();
  }
  return sum / order.length;
}

// A worker's first trial took 1.0-1.4 s on an H100 where its later trials of the same size took
// 0.42-0.55 s (docs/tuning.md). With the start-up trace on, the first TRACED_TRIALS trials of a
// process mark their steps, each after a wait for the device so the mark says when the GPU got
// there, not when the JS thread queued it: `worker-trial-<n>-<step>`.
const TRACED_TRIALS = 2;
const TRACED_EPOCHS = 2;
let trialsStarted = 0;

/** The trace's mark for step `what` of the process's n-th trial (the device's queue drained first), or undefined. */
function trialMarks(): ((what: string) => void) | undefined {
  const n = ++trialsStarted;
  if (!traceOn || n > TRACED_TRIALS) return undefined;
  return (what) => {
    const b = tf.backend();
    if (b instanceof GpuflowCudaBackend) b.sync();
    traceStart(`worker-trial-${n}-${what}`);
  };
}

export async function trainTrial(spec: TrialSpec, data: TrialData, opts: TrainOptions = {}): Promise<TrialResult> {
  checkData(spec, data);
  const mark = trialMarks();
  mark?.('start');
  const m = await obtain(spec, data, opts);
  const { train, validation } = data;
  const history: EpochRecord[] = [];
  let stopped = false;
  const onDevice = tf.getBackend() === GPUFLOW_CUDA;
  // On the GPU the rows go up raw and are scaled there (the same bytes), and they stay on the
  // device for the worker's next trial over them (device-data.ts).
  const features = () => (onDevice ? deviceScaledFeatures(m.meta.scaler, train) : tf.tensor2d(scaleX(m.meta.scaler, train.x, train.nRows), [train.nRows, train.nFeatures]));
  const make = () => ({ x: features(), y: targetTensor(m, train) });
  const rows: TrainingTensors = onDevice ? trainingTensors(train, JSON.stringify([m.meta.task, m.meta.classes.length, m.meta.scaler]), make) : ownTensors(make());
  const { x, y } = rows;
  mark?.('rows-ready');
  try {
    while (m.meta.epochs < spec.epochs) {
      if (opts.shouldStop?.()) {
        stopped = true;
        break;
      }
      const epoch = m.meta.epochs + 1;
      const traced = epoch <= TRACED_EPOCHS ? mark : undefined;
      const loss = await trainEpoch(m, x, y, permutation(train.nRows, deriveSeed(spec.seed, SeedTag.epoch, epoch)), spec.model.batchSize, epoch, traced && (() => traced(`epoch-${epoch}-batch-1`)));
      traced?.(`epoch-${epoch}-trained`);
      m.meta.epochs = epoch;
      const metrics = evaluate(m, validation);
      traced?.(`epoch-${epoch}-validated`);
      const record: EpochRecord = { trialId: spec.trialId, epoch, loss, metrics, score: scoreOf(spec.metric, metrics[spec.metric] ?? NaN) };
      history.push(record);
      opts.onEpoch?.(record);
      // A turn of the event loop: trainOnBatch resolves in microtasks, so without it the epoch's
      // progress report (an IPC send) and any message from main (a cancel) wait for the whole trial.
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
    }
  } catch (e) {
    if (opts.store?.get(spec.trialId) !== m) disposeModel(m.model);
    throw e;
  } finally {
    rows.release();
  }
  const metrics = history.at(-1)?.metrics ?? evaluate(m, validation);
  const result: TrialResult = {
    trialId: spec.trialId,
    epochs: m.meta.epochs,
    score: scoreOf(spec.metric, metrics[spec.metric] ?? NaN),
    metrics,
    history,
    stopped,
    backend: tf.getBackend(),
  };
  if (opts.store) opts.store.set(spec.trialId, m);
  else disposeModel(m.model);
  mark?.('done');
  return result;
}
