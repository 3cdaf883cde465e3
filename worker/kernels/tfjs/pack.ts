/**
 * A trained model as a JSON value, so its weights can travel inside a task's output from one
 * round of successive halving to the next, whichever worker runs it: the TF.js artifacts
 * (topology, training config, weight specs, our metadata) with the weight bytes (weights and
 * optimizer state) as one base64 string, a third larger than raw bytes and far smaller than a
 * JSON list of numbers. Unpacking gives the exact weights and optimizer state, so training on
 * from a packed model equals training on in memory (test/unit/tuning/pack.test.ts).
 */
import * as tf from '@tensorflow/tfjs';
import { formatIssues } from '../../../common/tuning/space';
import './dropout'; // registers SeededDropout for deserialisation
import { disposeModel, modelMetaSchema, type TrainedModel } from './trained-model';

export interface PackedModel {
  artifacts: {
    modelTopology: unknown;
    weightSpecs: unknown[];
    trainingConfig?: unknown;
    userDefinedMetadata?: unknown;
    format?: string;
    generatedBy?: string;
    convertedBy?: string | null;
  };
  /** Weight bytes, base64. */
  weights: string;
}

export class PackError extends Error {
  override name = 'PackError';
}

export interface PackOptions {
  /**
   * Whether the optimizer's state (Adam's moments, RMSprop's mean squares, momentum) travels too:
   * needed where the trial trains on (a next rung) or a saved model may resume; without it the
   * output is a third (Adam) of the size and still predicts the same.
   */
  includeOptimizer?: boolean;
}

export async function packModel(m: TrainedModel, opts: PackOptions = {}): Promise<PackedModel> {
  m.model.setUserDefinedMetadata({ gpuflow: m.meta });
  let saved: tf.io.ModelArtifacts | null = null;
  const handler = tf.io.withSaveHandler(async (a) => {
    saved = a;
    return { modelArtifactsInfo: tf.io.getModelArtifactsInfoForJSON(a) };
  });
  await m.model.save(handler, { includeOptimizer: opts.includeOptimizer ?? true });
  const a = saved as tf.io.ModelArtifacts | null;
  if (!a || a.modelTopology instanceof ArrayBuffer || a.modelTopology == null) throw new PackError('the model did not save as JSON artifacts');
  const bytes = a.weightData === undefined ? new ArrayBuffer(0) : tf.io.CompositeArrayBuffer.join(a.weightData);
  const artifacts: PackedModel['artifacts'] = { modelTopology: a.modelTopology, weightSpecs: a.weightSpecs ?? [] };
  if (a.trainingConfig != null) artifacts.trainingConfig = a.trainingConfig;
  if (a.userDefinedMetadata != null) artifacts.userDefinedMetadata = a.userDefinedMetadata;
  if (a.format != null) artifacts.format = a.format;
  if (a.generatedBy != null) artifacts.generatedBy = a.generatedBy;
  if (a.convertedBy != null) artifacts.convertedBy = a.convertedBy;
  return { artifacts, weights: Buffer.from(bytes).toString('base64') };
}

export async function unpackModel(p: PackedModel, where = 'model'): Promise<TrainedModel> {
  if (typeof p?.weights !== 'string' || typeof p.artifacts !== 'object' || p.artifacts === null) throw new PackError(`${where}: not a packed model`);
  const b = Buffer.from(p.weights, 'base64');
  const weightData = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  const model = await tf.loadLayersModel(tf.io.fromMemory({ ...(p.artifacts as tf.io.ModelArtifacts), weightData }));
  const r = modelMetaSchema.safeParse((model.getUserDefinedMetadata() as { gpuflow?: unknown } | undefined)?.gpuflow);
  if (!r.success) {
    disposeModel(model);
    throw new PackError(formatIssues(`${where} userDefinedMetadata.gpuflow`, r.error.issues));
  }
  return { model, meta: r.data };
}
