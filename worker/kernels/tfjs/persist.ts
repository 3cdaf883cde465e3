/**
 * Saving and loading trial models in the TF.js layers format: a directory with model.json
 * (topology, weights manifest, training config, our metadata) and weights.bin, loadable by any
 * TF.js (tf.loadLayersModel) and by tfjs-converter tools. tfjs's 'file://' handler exists only in
 * tfjs-node, so this is a small IOHandler over node:fs that works with every backend.
 *
 * The optimizer state is saved too (includeOptimizer), so a trial resumed from disk continues
 * exactly as one kept in memory.
 */
import * as tf from '@tensorflow/tfjs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { makeFolderNoFollow, writeFileNoFollow } from '../../../common/safe-files';
import { formatIssues } from '../../../common/tuning/space';
import './dropout'; // registers SeededDropout for deserialisation
import { disposeModel, modelMetaSchema, type TrainedModel } from './trained-model';

const MODEL_JSON = 'model.json';
const WEIGHTS_BIN = 'weights.bin';

export class ModelFileError extends Error {
  override name = 'ModelFileError';
}

/** model.json's content (tfjs-core's getModelJSONForModelArtifacts, which tf.io does not export). */
function modelJSON(a: tf.io.ModelArtifacts, manifest: tf.io.WeightsManifestConfig): tf.io.ModelJSON {
  const json: tf.io.ModelJSON = { modelTopology: a.modelTopology as {}, format: a.format, generatedBy: a.generatedBy, convertedBy: a.convertedBy, weightsManifest: manifest };
  if (a.signature != null) json.signature = a.signature;
  if (a.userDefinedMetadata != null) json.userDefinedMetadata = a.userDefinedMetadata;
  if (a.modelInitializer != null) json.modelInitializer = a.modelInitializer;
  if (a.initializerSignature != null) json.initializerSignature = a.initializerSignature;
  if (a.trainingConfig != null) json.trainingConfig = a.trainingConfig;
  return json;
}

/** An IOHandler reading and writing `dir/model.json` and `dir/weights.bin`. */
export function fileSystemIO(dir: string): tf.io.IOHandler {
  return {
    async save(artifacts: tf.io.ModelArtifacts): Promise<tf.io.SaveResult> {
      if (artifacts.modelTopology instanceof ArrayBuffer) throw new ModelFileError('binary model topologies are not supported');
      // The folder may be created now: each level is checked as it is made, and each file goes
      // through a random O_EXCL temporary renamed into place, so a link planted in the folder
      // (or a predictable temporary name) never redirects the write (issue 29.3).
      makeFolderNoFollow(path.resolve(dir));
      const weights = artifacts.weightData === undefined ? new ArrayBuffer(0) : tf.io.CompositeArrayBuffer.join(artifacts.weightData);
      const manifest: tf.io.WeightsManifestConfig = [{ paths: [WEIGHTS_BIN], weights: artifacts.weightSpecs ?? [] }];
      const json = modelJSON(artifacts, manifest);
      writeFileNoFollow(path.join(path.resolve(dir), WEIGHTS_BIN), new Uint8Array(weights));
      writeFileNoFollow(path.join(path.resolve(dir), MODEL_JSON), JSON.stringify(json));
      return { modelArtifactsInfo: tf.io.getModelArtifactsInfoForJSON(artifacts) };
    },
    async load(): Promise<tf.io.ModelArtifacts> {
      const file = path.join(dir, MODEL_JSON);
      let json: tf.io.ModelJSON;
      try {
        json = JSON.parse(await readFile(file, 'utf8')) as tf.io.ModelJSON;
      } catch (e) {
        throw new ModelFileError(`${file}: ${(e as Error).message}`);
      }
      if (typeof json !== 'object' || json === null || json.modelTopology == null) throw new ModelFileError(`${file}: not a TF.js model (no modelTopology)`);
      return tf.io.getModelArtifactsForJSON(json, async (manifest) => {
        const specs: tf.io.WeightsManifestEntry[] = [];
        const buffers: ArrayBuffer[] = [];
        for (const group of manifest) {
          specs.push(...group.weights);
          for (const p of group.paths) {
            // Weight files must sit beside model.json: no paths out of the directory.
            if (path.basename(p) !== p) throw new ModelFileError(`${file}: weights path '${p}' leaves the model directory`);
            const b = await readFile(path.join(dir, p));
            buffers.push(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
          }
        }
        return [specs, tf.io.concatenateArrayBuffers(buffers)];
      });
    },
  };
}

/** Saves a trial's model (weights, optimizer state, metadata) to `dir`. */
export async function saveTrialModel(m: TrainedModel, dir: string): Promise<void> {
  m.model.setUserDefinedMetadata({ gpuflow: m.meta });
  await m.model.save(fileSystemIO(dir), { includeOptimizer: true });
}

/** Loads a model saved by saveTrialModel; the metadata is checked field by field. */
export async function loadTrialModel(dir: string): Promise<TrainedModel> {
  const model = await tf.loadLayersModel(fileSystemIO(dir));
  const raw = (model.getUserDefinedMetadata() as { gpuflow?: unknown } | undefined)?.gpuflow;
  const r = modelMetaSchema.safeParse(raw);
  if (!r.success) {
    disposeModel(model);
    throw new ModelFileError(formatIssues(`${path.join(dir, MODEL_JSON)} userDefinedMetadata.gpuflow`, r.error.issues));
  }
  return { model, meta: r.data };
}
