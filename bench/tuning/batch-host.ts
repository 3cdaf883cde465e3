// The host's side of a training batch on gpuflow-cuda, timed: the MNIST-shaped example's model
// (784 -> 3 x 512 relu -> 10, batch 128; batch-ops.ts counts the same batch's device calls) over a
// null device whose calls do nothing (no arithmetic, reads give zeros), so what is left is tfjs's
// engine, tfjs-layers, the backend's argument records and the addon-call boundary on the JS side:
// what a GPU trial's batch costs the CPU before any launch or copy. Median of REPS epochs.
// Run: node --import tsx bench/tuning/batch-host.ts [batches=40] [reps=7] [optimizer=adam] [dropout=0.1]
// Prints one JSON line.
import * as tf from '@tensorflow/tfjs';
import { execSync } from 'node:child_process';
import { modelSpecFromParams, type OptimizerName } from '../../common/tuning/trial';
import { GPUFLOW_CUDA } from '../../worker/kernels/tfjs/cuda/backend';
import { registerGpuflowCuda } from '../../worker/kernels/tfjs/cuda/register';
import { buildModel } from '../../worker/kernels/tfjs/models';
import { trainEpoch } from '../../worker/kernels/tfjs/train';
import { nullDevice } from './null-device';

const batches = Number(process.argv[2] ?? 40);
const reps = Number(process.argv[3] ?? 7);
const optimizer = (process.argv[4] ?? 'adam') as OptimizerName;
const dropout = Number(process.argv[5] ?? 0.1);
const BATCH = 128;

const { device, calls } = nullDevice();
registerGpuflowCuda(() => device);
await tf.setBackend(GPUFLOW_CUDA);

const rows = batches * BATCH;
const spec = modelSpecFromParams({ kind: 'mlp', batchSize: BATCH }, { layers: 3, units: 512, optimizer, learningRate: 0.001, dropout });
const model = buildModel(spec, { task: 'classification', nFeatures: 784, nClasses: 10 }, 3);
const x = tf.zeros([rows, 784]);
const y = tf.zeros([rows, 10]);
const m = { model, meta: { spec, epochs: 0 } };
const order = Int32Array.from({ length: rows }, (_, i) => i);
const ms: number[] = [];
let opsPerBatch = 0;
for (let r = 0; r <= reps; r++) {
  const c0 = calls();
  const t0 = performance.now();
  await trainEpoch(m as never, x, y, order, BATCH, r + 1);
  // The first epoch makes the optimizer's state and tfjs's caches: not timed.
  if (r > 0) ms.push((performance.now() - t0) / batches);
  opsPerBatch = (calls() - c0) / batches;
}
ms.sort((a, b) => a - b);
const commit = execSync('git rev-parse --short HEAD').toString().trim();
const load = execSync('cat /proc/loadavg').toString().split(' ')[0];
process.stdout.write(
  JSON.stringify({ bench: 'tuning-batch-host', commit, device: 'null (calls do nothing)', optimizer, dropout, batchSize: BATCH, batches, reps, load, msPerBatchMedian: Math.round(ms[ms.length >> 1] * 1000) / 1000, msPerBatchMin: Math.round(ms[0] * 1000) / 1000, deviceOpsPerBatch: opsPerBatch }) + '\n',
);
