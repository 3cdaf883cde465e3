// What one training batch asks of the device on gpuflow-cuda: the device ops by name (each one
// kernel launch or cuBLAS call), uploads and reads (host <-> device copies, count and bytes),
// allocs and frees, at the MNIST-shaped example's model (examples/tuning-mnist-mlp.json: 784
// features, 3 x 512 relu, 10 classes, batch 128; fewer rows), over the fake device
// (native/fake-tf-ops.ts: the same argument records the CUDA kernels read, so the same calls).
// Four training processes at once contend for the host's launch and small-copy path
// (docs/performance.md, issue 26), so these counts are what a batch pays there. Also the tfjs
// kernels a batch runs (tf.profile), what an epoch costs besides its batches, and its validation pass.
// Run: node --import tsx bench/tuning/batch-ops.ts [rows=2048] [optimizer=adam] [dropout=0.1]
// Writes bench/results/tuning-batch-ops-vm-<commit>[-<optimizer>-dropout<rate>].json and prints it.
import * as tf from '@tensorflow/tfjs';
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fakeTfDevice } from '../../native/fake-tf-ops';
import { countingDevice, type TfOpCounts } from '../../worker/kernels/tfjs/cuda/op-counter';
import { modelSpecFromParams, type OptimizerName } from '../../common/tuning/trial';
import { makeClassification } from '../../worker/kernels/tfjs/datasets';
import { trainValidationSplit } from '../../worker/kernels/tfjs/split';
import { GPUFLOW_CUDA } from '../../worker/kernels/tfjs/cuda/backend';
import { registerGpuflowCuda } from '../../worker/kernels/tfjs/cuda/register';
import { buildModel } from '../../worker/kernels/tfjs/models';
import { fitScaler } from '../../worker/kernels/tfjs/scaling';
import { deviceScaledFeatures } from '../../worker/kernels/tfjs/cuda/device-data';
import { evaluate, trainEpoch } from '../../worker/kernels/tfjs/train';

const rows = Number(process.argv[2] ?? 2048);
const optimizer = (process.argv[3] ?? 'adam') as OptimizerName;
const dropout = Number(process.argv[4] ?? 0.1);
const BATCH = 128;
const MEASURED = 3;


const { device: fake } = fakeTfDevice();
const counter = countingDevice(fake);
registerGpuflowCuda(() => counter.device);
await tf.setBackend(GPUFLOW_CUDA);

const data = trainValidationSplit(makeClassification({ nSamples: rows, nFeatures: 784, nInformative: 64, nClasses: 10, flipY: 0.02, seed: 1 }), { validationFraction: 0.2, seed: 2, stratify: true });
const { train, validation } = data;
const spec = modelSpecFromParams({ kind: 'mlp', batchSize: BATCH }, { layers: 3, units: 512, optimizer, learningRate: 0.001, dropout });
const model = buildModel(spec, { task: 'classification', nFeatures: 784, nClasses: 10 }, 3);
const scaler = fitScaler(train);
const x = deviceScaledFeatures(scaler, train);
const y = tf.tidy(() => tf.oneHot(tf.tensor1d(train.y, 'int32'), 10).toFloat());
const meta = { model, meta: { format: 'gpuflow.trial-model/1', trialId: 'b', spec, seed: 3, epochs: 0, task: 'classification' as const, nFeatures: 784, featureNames: train.featureNames, classes: train.classes, scaler } };
const orderOf = (batches: number) => Int32Array.from({ length: batches * BATCH }, (_, i) => i % train.nRows);

// The first epoch makes the optimizer's state and tfjs's caches: not counted. Then an epoch of
// one batch and one of 1 + MEASURED: their difference over MEASURED is what each further batch
// costs, and the one-batch epoch less that is the epoch's fixed part (its order's upload).
await trainEpoch(meta as never, x, y, orderOf(2), BATCH, 1);
counter.take();
await trainEpoch(meta as never, x, y, orderOf(1), BATCH, 2);
const oneBatch = counter.take();
await trainEpoch(meta as never, x, y, orderOf(1 + MEASURED), BATCH, 3);
const more = counter.take();
function per(a: TfOpCounts, b: TfOpCounts, k: number): TfOpCounts {
  const q = (v: number, what: string) => {
    if (v % k !== 0) throw new Error(`batch-ops: ${what} differs between batches (${v} over ${k})`);
    return v / k;
  };
  const ops: Record<string, number> = {};
  for (const name of new Set([...Object.keys(a.ops), ...Object.keys(b.ops)])) {
    const v = q((b.ops[name] ?? 0) - (a.ops[name] ?? 0), name);
    if (v !== 0) ops[name] = v;
  }
  return {
    ops,
    opCount: q(b.opCount - a.opCount, 'opCount'),
    uploads: { count: q(b.uploads.count - a.uploads.count, 'uploads'), bytes: q(b.uploads.bytes - a.uploads.bytes, 'upload bytes'), sizes: b.uploads.sizes.slice(a.uploads.sizes.length, a.uploads.sizes.length + (b.uploads.sizes.length - a.uploads.sizes.length) / k) },
    reads: { count: q(b.reads.count - a.reads.count, 'reads'), bytes: q(b.reads.bytes - a.reads.bytes, 'read bytes') },
    allocs: q(b.allocs - a.allocs, 'allocs'),
    frees: q(b.frees - a.frees, 'frees'),
  };
}
const perBatch = per(oneBatch, more, MEASURED);
const perEpochFixed = per(perBatch, oneBatch, 1);
const profile = await tf.profile(() => trainEpoch(meta as never, x, y, orderOf(1), BATCH, 4).then(() => tf.scalar(0)));
const kernels: Record<string, number> = {};
for (const k of profile.kernels) kernels[k.name] = (kernels[k.name] ?? 0) + 1;
counter.take();
evaluate(meta as never, validation);
const validationPass = counter.take();

const commit = execSync('git rev-parse --short HEAD').toString().trim();
const result = {
  bench: 'tuning-batch-ops',
  commit,
  device: 'fake (native/fake-tf-ops.ts)',
  model: { features: 784, hidden: spec.hiddenLayers, classes: 10, activation: spec.activation, optimizer, dropout, batchSize: BATCH },
  trainRows: train.nRows,
  validationRows: validation.nRows,
  perBatch,
  perEpochFixed,
  tfjsKernelsPerBatch: Object.fromEntries(Object.entries(kernels).sort(([a], [b]) => a.localeCompare(b))),
  tfjsKernelCount: profile.kernels.length,
  validationPass,
};
// Another optimizer or rate is another file (the example's adam and 0.1 keep the plain name).
const variant = optimizer === 'adam' && dropout === 0.1 ? '' : `-${optimizer}-dropout${dropout}`;
const out = `bench/results/tuning-batch-ops-vm-${commit}${variant}.json`;
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
tf.dispose([x, y]);
