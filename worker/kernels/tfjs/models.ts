/**
 * Builds and compiles the tf.sequential model of a ModelSpec. Every initialiser is seeded from the
 * trial seed and the layer index, and dropout is the seeded kind, so the same spec and seed give
 * the same weights on every run of a given backend.
 *
 *   linear    regression                 dense(1)                        mean squared error
 *   logistic  classification, 2 classes  dense(1, sigmoid)               binary cross-entropy
 *             k > 2 classes              dense(k, softmax)               categorical cross-entropy
 *   mlp       either                     [dense(units, act), dropout]* then the head above
 */
import * as tf from '@tensorflow/tfjs';
import { deriveSeed, SeedTag } from '../../../common/tuning/random';
import type { ModelSpec, Task } from '../../../common/tuning/trial';
import { GPUFLOW_CUDA } from './cuda/backend';
import { FusedAdam, FusedRmsprop, FusedSgd } from './cuda/fused-optimizers';
import { fusedCategoricalCrossentropy } from './cuda/cross-entropy';
import { SeededDropout } from './dropout';

export interface ModelShape {
  task: Task;
  nFeatures: number;
  /** Classification: number of classes (>= 2). */
  nClasses: number;
}

export class ModelSpecError extends Error {
  override name = 'ModelSpecError';
}

/** tfjs's optimizer, or on gpuflow-cuda the same optimizer fused into one kernel per variable. */
function optimizer(spec: ModelSpec): tf.Optimizer {
  if (tf.getBackend() === GPUFLOW_CUDA) {
    switch (spec.optimizer) {
      case 'sgd':
        return new FusedSgd(spec.learningRate);
      case 'adam':
        return new FusedAdam(spec.learningRate);
      case 'rmsprop':
        return new FusedRmsprop(spec.learningRate);
    }
  }
  switch (spec.optimizer) {
    case 'sgd':
      return tf.train.sgd(spec.learningRate);
    case 'adam':
      return tf.train.adam(spec.learningRate);
    case 'rmsprop':
      return tf.train.rmsprop(spec.learningRate);
  }
}

export function checkModelFitsTask(spec: ModelSpec, task: Task): void {
  if (spec.kind === 'linear' && task !== 'regression') throw new ModelSpecError('a linear regression model needs a regression target; use logistic for classes');
  if (spec.kind === 'logistic' && task !== 'classification') throw new ModelSpecError('a logistic regression model needs a classification target; use linear for numbers');
}

/**
 * The same categorical cross-entropy in one device op each way (cross-entropy.ts). The compiled
 * loss stays the string, so a saved model's training config is the same on every backend (a
 * function loss does not serialise); trainOnBatch reads the loss functions of the Sequential's
 * inner LayersModel (a private field, checked here: without it the compiled loss just stays).
 */
function useFusedLoss(model: tf.Sequential): void {
  const inner: unknown = Reflect.get(model, 'model');
  if (inner instanceof tf.LayersModel && inner.lossFunctions.length === 1) inner.lossFunctions = [fusedCategoricalCrossentropy];
}

export function buildModel(spec: ModelSpec, shape: ModelShape, seed: number): tf.LayersModel {
  checkModelFitsTask(spec, shape.task);
  if (shape.task === 'classification' && shape.nClasses < 2) throw new ModelSpecError(`classification needs at least 2 classes, got ${shape.nClasses}`);
  const reg = spec.l2 > 0 ? () => tf.regularizers.l2({ l2: spec.l2 }) : () => undefined;
  const init = (layer: number) => tf.initializers.glorotUniform({ seed: deriveSeed(seed, SeedTag.init, layer) });
  const model = tf.sequential({ name: 'trial' });
  const hidden = spec.kind === 'mlp' ? spec.hiddenLayers : [];
  hidden.forEach((units, i) => {
    model.add(
      tf.layers.dense({
        name: `hidden${i}`,
        units,
        activation: spec.activation,
        kernelInitializer: init(i),
        kernelRegularizer: reg(),
        ...(i === 0 ? { inputShape: [shape.nFeatures] } : {}),
      }),
    );
    if (spec.dropout > 0) model.add(new SeededDropout({ name: `dropout${i}`, rate: spec.dropout, seed: deriveSeed(seed, SeedTag.dropout, i) }));
  });
  const multi = shape.task === 'classification' && shape.nClasses > 2;
  model.add(
    tf.layers.dense({
      name: 'output',
      units: multi ? shape.nClasses : 1,
      activation: shape.task === 'regression' ? 'linear' : multi ? 'softmax' : 'sigmoid',
      kernelInitializer: init(hidden.length),
      kernelRegularizer: reg(),
      ...(hidden.length === 0 ? { inputShape: [shape.nFeatures] } : {}),
    }),
  );
  model.compile({
    optimizer: optimizer(spec),
    loss: shape.task === 'regression' ? 'meanSquaredError' : multi ? 'categoricalCrossentropy' : 'binaryCrossentropy',
  });
  if (multi && tf.getBackend() === GPUFLOW_CUDA) useFusedLoss(model);
  return model;
}
