/**
 * A trial's model plus what is needed to resume or apply it: the spec and seed it was built from,
 * the epochs it has trained, the feature names, classes and scaler. The metadata travels inside
 * model.json (`userDefinedMetadata.gpuflow`) and is parsed, not trusted, when loaded.
 */
import type * as tf from '@tensorflow/tfjs';
import * as z from 'zod';
import { modelSpecSchema, type ModelSpec, type Task } from '../../../common/tuning/trial';
import { scalerSchema, type Scaler } from './scaling';

export const MODEL_FORMAT = 'gpuflow.tfjs-model/1';

export interface ModelMeta {
  format: typeof MODEL_FORMAT;
  trialId: string;
  spec: ModelSpec;
  seed: number;
  /** Epochs trained so far. */
  epochs: number;
  task: Task;
  nFeatures: number;
  featureNames: string[];
  classes: (string | number)[];
  scaler: Scaler;
}

export const modelMetaSchema = z.object({
  format: z.literal(MODEL_FORMAT),
  trialId: z.string(),
  spec: modelSpecSchema,
  seed: z.number().int().min(0),
  epochs: z.number().int().min(0),
  task: z.enum(['classification', 'regression']),
  nFeatures: z.number().int().positive(),
  featureNames: z.array(z.string()),
  classes: z.array(z.union([z.string(), z.number()])),
  scaler: scalerSchema,
});

export interface TrainedModel {
  model: tf.LayersModel;
  meta: ModelMeta;
}

/** Frees the model's weights and its optimizer's state (compile() with an Optimizer object leaves the optimizer to us). */
export function disposeModel(model: tf.LayersModel): void {
  const opt = model.optimizer;
  model.dispose();
  opt?.dispose();
}
