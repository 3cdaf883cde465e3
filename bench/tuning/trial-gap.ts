// The JS a GPU worker's first search trial runs between its rows being built
// (`worker-trial-data-built`) and their upload (`worker-device-rows-start`), piece by piece, on the
// CPU at the MNIST-shaped example's size (examples/tuning-mnist-mlp.json: 60 000 x 784 split into
// 48 000 training and 12 000 validation rows, 10 classes, 3 x 512): building the model, fitting
// the scaler, the device cache's key for the rows, and the host scaling of the training rows and
// of the validation rows (each epoch's evaluate). Best of N runs of each. Prints JSON lines.
// Run: node --import tsx bench/tuning/trial-gap.ts [rows=60000] [reps=3]
import * as tf from '@tensorflow/tfjs';
import { execSync } from 'node:child_process';
import { modelSpecFromParams } from '../../common/tuning/trial';
import { makeClassification, type Dataset } from '../../worker/kernels/tfjs/datasets';
import { buildModel } from '../../worker/kernels/tfjs/models';
import { fitScaler, scaledFeatures, scaleX } from '../../worker/kernels/tfjs/scaling';
import { trainValidationSplit } from '../../worker/kernels/tfjs/split';
import { datasetDigest, nameSyntheticRows, rowsKey } from '../../worker/kernels/tfjs/cuda/device-data';
import type { DataSpec } from '../../common/tuning/data-spec';

const rows = Number(process.argv[2] ?? 60000);
const reps = Number(process.argv[3] ?? 3);
const line = (o: Record<string, unknown>) => process.stdout.write(JSON.stringify(o) + '\n');

function best(fn: () => unknown): number {
  let ms = Infinity;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    fn();
    ms = Math.min(ms, performance.now() - t0);
  }
  return Math.round(ms * 10) / 10;
}

await tf.setBackend('cpu');
const commit = execSync('git rev-parse --short HEAD').toString().trim();
const load = execSync('cat /proc/loadavg').toString().split(' ')[0];
const data = trainValidationSplit(makeClassification({ nSamples: rows, nFeatures: 784, nInformative: 64, nClasses: 10, flipY: 0.02, seed: 1 }), { validationFraction: 0.2, seed: 2, stratify: true });
const { train, validation } = data;
const spec = modelSpecFromParams({ kind: 'mlp' }, { layers: 3, units: 512, optimizer: 'adam', learningRate: 0.001 });
const scaler = fitScaler(train);
// A fresh Dataset object per rep: fitScaler and the digest are cached per object.
const fresh = (d: Dataset): Dataset => ({ ...d });
const dataSpec: DataSpec = { source: { kind: 'classification', nSamples: rows, nFeatures: 784, nInformative: 64, nClasses: 10, flipY: 0.02, seed: 1 }, split: { validationFraction: 0.2, seed: 2, stratify: true } };
const parts: Record<string, number> = {
  buildModelMs: best(() => tf.dispose(buildModel(spec, { task: 'classification', nFeatures: 784, nClasses: 10 }, 3).getWeights())),
  fitScalerMs: best(() => fitScaler(fresh(train))),
  fitScalerCachedMs: best(() => fitScaler(train)),
  rowsDigestMs: best(() => datasetDigest(fresh(train))),
  rowsKeyNamedMs: best(() => {
    const d = fresh(train);
    nameSyntheticRows(dataSpec, d);
    return rowsKey(d);
  }),
  scaleTrainMs: best(() => scaleX(scaler, train.x, train.nRows)),
  scaleValidationMs: best(() => scaleX(scaler, validation.x, validation.nRows)),
  scaleValidationCachedMs: (scaledFeatures(scaler, validation), best(() => scaledFeatures(scaler, validation))),
};
line({ bench: 'tuning-trial-gap', commit, load, rows, trainRows: train.nRows, features: 784, reps, ...parts });
