/**
 * Applying a trial's model to rows: the predict node's kernel, and the trainer's validation pass.
 * Features are scaled with the model's own scaler; regression outputs are unscaled back to the
 * target's units; classification gives n x k class probabilities and the predicted labels.
 */
import * as tf from '@tensorflow/tfjs';
import { binaryToTwoColumns } from './metrics';
import { scaleX, unscaleY } from './scaling';
import type { TrainedModel } from './trained-model';

export type Prediction =
  | { task: 'regression'; values: Float32Array }
  | { task: 'classification'; probabilities: Float32Array; nClasses: number; classIndex: Int32Array; labels: (string | number)[] };

/** Rows per forward pass of predict (and of a trial's validation pass). */
export const PREDICT_BATCH = 1024;

/** Raw model output on already-scaled features, as a flat array. */
export function rawOutput(model: tf.LayersModel, xScaled: Float32Array, nRows: number, nFeatures: number): Float32Array {
  return tf.tidy(() => {
    const out = model.predict(tf.tensor2d(xScaled, [nRows, nFeatures]), { batchSize: PREDICT_BATCH }) as tf.Tensor;
    return out.dataSync() as Float32Array;
  });
}

/** Model output -> prediction in the data's own units / classes. */
export function toPrediction(m: TrainedModel, raw: Float32Array, nRows: number): Prediction {
  const { meta } = m;
  if (meta.task === 'regression') return { task: 'regression', values: unscaleY(meta.scaler, raw) };
  const k = meta.classes.length;
  const probabilities = k === 2 ? binaryToTwoColumns(raw) : raw;
  const classIndex = new Int32Array(nRows);
  for (let i = 0; i < nRows; i++) {
    let best = 0;
    for (let c = 1; c < k; c++) if (probabilities[i * k + c] > probabilities[i * k + best]) best = c;
    classIndex[i] = best;
  }
  return { task: 'classification', probabilities, nClasses: k, classIndex, labels: Array.from(classIndex, (c) => meta.classes[c]) };
}

/** Predicts `nRows` rows of features (row-major, the model's feature order). */
export function predict(m: TrainedModel, x: Float32Array, nRows: number): Prediction {
  const d = m.meta.nFeatures;
  if (x.length !== nRows * d) throw new RangeError(`predict: the model takes ${d} features (${m.meta.featureNames.join(', ')}); got ${x.length} values for ${nRows} rows`);
  return toPrediction(m, rawOutput(m.model, scaleX(m.meta.scaler, x, nRows), nRows, d), nRows);
}
