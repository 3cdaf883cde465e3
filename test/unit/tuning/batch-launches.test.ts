// What a training batch asks of the device on gpuflow-cuda (fake device, counted by
// worker/kernels/tfjs/cuda/op-counter.ts): the copies and launches issue 26 cuts, with the results still those
// of tfjs's cpu backend.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeTfDevice } from '../../../native/fake-tf-ops';
import { countingDevice } from '../../../worker/kernels/tfjs/cuda/op-counter';
import { GPUFLOW_CUDA } from '../../../worker/kernels/tfjs/cuda/backend';
import { registerGpuflowCuda } from '../../../worker/kernels/tfjs/cuda/register';
import { modelSpecFromParams } from '../../../common/tuning/trial';
import { makeClassification } from '../../../worker/kernels/tfjs/datasets';
import { buildModel } from '../../../worker/kernels/tfjs/models';
import { trainEpoch } from '../../../worker/kernels/tfjs/train';
import { SeededDropout, startEpoch } from '../../../worker/kernels/tfjs/dropout';
import type { TrainedModel } from '../../../worker/kernels/tfjs/trained-model';
import { runKernelChecks } from '../../../worker/kernels/tfjs/cuda/checks';
import { runLossSumChecks } from '../../../worker/kernels/tfjs/cuda/fused-checks';
import { CROSS_ENTROPY, CROSS_ENTROPY_GRAD } from '../../../worker/kernels/tfjs/cuda/kernels';

const { device: fake, buffers } = fakeTfDevice();
const counter = countingDevice(fake);

beforeAll(async () => {
  registerGpuflowCuda(() => counter.device);
  await tf.setBackend(GPUFLOW_CUDA);
});

describe('constants on the device', () => {
  it('a tensor of one repeated value shares one buffer per dtype, size and value, uploads nothing, and outlives its tensors', () => {
    const a = tf.ones([4, 5]);
    counter.take();
    const b = tf.ones([4, 5]);
    const c = tf.fill([4, 5], 1);
    const z = tf.zeros([4, 5]);
    const negZero = tf.tensor1d([-0, -0]);
    const zero = tf.tensor1d([0, 0]);
    const i = tf.tensor1d([1, 1], 'int32');
    const mixed = tf.tensor1d([1, 2]);
    const made = counter.take();
    // b reuses a's buffer; the fill kernel makes its own; z, -0, 0 and int 1 are new constants
    // (one Fill each); `mixed` is uploaded.
    expect(made.uploads.count).toBe(1);
    expect(made.ops).toEqual({ Fill: 5 });
    expect(Array.from(b.dataSync())).toEqual(new Array(20).fill(1));
    expect(Array.from(z.dataSync())).toEqual(new Array(20).fill(0));
    expect(Object.is(negZero.dataSync()[0], -0)).toBe(true);
    expect(Object.is(zero.dataSync()[0], 0)).toBe(true);
    expect(i.dtype).toBe('int32');
    expect(Array.from(i.dataSync())).toEqual([1, 1]);
    const before = buffers.size;
    tf.dispose([a, b]);
    // The shared buffer stays for the next tensor of ones.
    expect(buffers.size).toBe(before);
    const again = tf.ones([4, 5]);
    expect(counter.take().allocs).toBe(0);
    expect(Array.from(tf.add(again, mixed.reshape([1, 2]).slice([0, 0], [1, 1])).dataSync())).toEqual(new Array(20).fill(2));
    tf.dispose([again, c, z, negZero, zero, i, mixed]);
  });
});

describe('a training batch on gpuflow-cuda', () => {
  const ds = makeClassification({ nSamples: 256, nFeatures: 12, nInformative: 5, nClasses: 3, seed: 8 });
  const spec = modelSpecFromParams({ kind: 'mlp', hiddenLayers: [16, 16], optimizer: 'adam', dropout: 0.1, batchSize: 32 }, {});
  const model = (): TrainedModel => {
    const m = buildModel(spec, { task: 'classification', nFeatures: 12, nClasses: 3 }, 5);
    return { model: m, meta: { format: 'gpuflow.trial-model/1', trialId: 't', spec, seed: 5, epochs: 0, task: 'classification', nFeatures: 12, featureNames: ds.featureNames, classes: ds.classes, scaler: { xMean: [], xStd: [], yMean: 0, yStd: 1 } } } as unknown as TrainedModel;
  };
  const order = (batches: number) => Int32Array.from({ length: batches * 32 }, (_, i) => (i * 7) % ds.nRows);

  it('uploads nothing per batch (the epoch order goes up once) and reads once an epoch (the loss sum)', async () => {
    const m = model();
    const x = tf.tensor2d(ds.x, [ds.nRows, 12]);
    const y = tf.tidy(() => tf.oneHot(tf.tensor1d(ds.y, 'int32'), 3).toFloat());
    await trainEpoch(m, x, y, order(2), 32, 1);
    counter.take();
    await trainEpoch(m, x, y, order(1), 32, 2);
    const one = counter.take();
    await trainEpoch(m, x, y, order(4), 32, 3);
    const four = counter.take();
    // Nothing a batch makes outlives its epoch: no tensor, no device buffer.
    const tensors = tf.memory().numTensors, held = buffers.size;
    await trainEpoch(m, x, y, order(3), 32, 4);
    expect(tf.memory().numTensors).toBe(tensors);
    expect(buffers.size).toBe(held);
    counter.take();
    expect(one.uploads.sizes).toEqual([32 * 4]);
    expect(four.uploads.sizes).toEqual([4 * 32 * 4]);
    expect(one.reads).toEqual({ count: 1, bytes: 8 });
    expect(four.reads).toEqual({ count: 1, bytes: 8 });
    tf.dispose([x, y]);
    m.model.dispose();
  });

  it("the epoch's loss summed on the device is the host's sum of trainOnBatch's losses, bit for bit", async () => {
    const x = tf.tensor2d(ds.x, [ds.nRows, 12]);
    const y = tf.tidy(() => tf.oneHot(tf.tensor1d(ds.y, 'int32'), 3).toFloat());
    const a = model(), b = model();
    const rows = order(5).subarray(0, 150); // a last batch of 22 rows
    const device = await trainEpoch(a, x, y, rows, 32, 1);
    let sum = 0;
    startEpoch(b.model, 1); // the same dropout masks as trainEpoch's
    for (let k = 0; k < rows.length; k += 32) {
      const idx = tf.tensor1d(rows.subarray(k, k + 32), 'int32');
      const [xb, yb] = [tf.gather(x, idx), tf.gather(y, idx)];
      sum += Number(await b.model.trainOnBatch(xb, yb)) * idx.size;
      tf.dispose([idx, xb, yb]);
    }
    expect(device).toBe(sum / rows.length);
    expect(Array.from(a.model.getWeights()[0].dataSync())).toEqual(Array.from(b.model.getWeights()[0].dataSync()));
    tf.dispose([x, y]);
    a.model.dispose();
    b.model.dispose();
  });

  it("the GPU checks' loss sums equal the host's bit for bit", async () => {
    const checks = [...(await runLossSumChecks(1)), ...(await runLossSumChecks(2))];
    expect(checks.map((c) => c.batches)).toEqual([1, 7, 375, 1, 7, 375]);
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    expect(checks[2].host).toBeGreaterThan(0);
  });

  it('trains as on the cpu backend (losses per epoch within float32 tolerance)', async () => {
    const run = async (backend: string) => {
      await tf.setBackend(backend);
      const m = model();
      const x = tf.tensor2d(ds.x, [ds.nRows, 12]);
      const y = tf.tidy(() => tf.oneHot(tf.tensor1d(ds.y, 'int32'), 3).toFloat());
      const losses = [];
      for (let e = 1; e <= 3; e++) losses.push(await trainEpoch(m, x, y, order(8), 32, e));
      tf.dispose([x, y]);
      m.model.dispose();
      return losses;
    };
    const cpu = await run('cpu');
    const gpu = await run(GPUFLOW_CUDA);
    gpu.forEach((l, i) => expect(Math.abs(l - cpu[i])).toBeLessThan(1e-4 * cpu[i]));
    expect(cpu[2]).toBeLessThan(cpu[0]);
  }, 60_000);
});

describe('gradients in one op (gradients.ts)', () => {
  const onBoth = async (f: () => tf.Tensor) => {
    await tf.setBackend('cpu');
    const want = Array.from(tf.tidy(f).dataSync());
    await tf.setBackend(GPUFLOW_CUDA);
    counter.take();
    const got = Array.from(tf.tidy(f).dataSync());
    return { want, got, ops: counter.take().ops };
  };

  it("relu's gradient is dy * step(x) in one op: 0 at x = 0, NaN at NaN", async () => {
    const { want, got, ops } = await onBoth(() => tf.grad((x: tf.Tensor) => tf.relu(x).mul(tf.tensor1d([1, 2, 3, 4, 5])))(tf.tensor1d([-1, 0, 2, NaN, 1e-30])));
    expect(want).toEqual([0, 0, 3, NaN, 5]);
    expect(got).toEqual(want);
    expect(ops['Binary.ReluGrad']).toBe(1);
    expect(ops['Unary.Step']).toBeUndefined();
  });

  it("softmax's gradient is one op with cpu's values", async () => {
    const logits = [0.3, -1.2, 2.5, 0, 1, 1, 1, 1, -4, 3, 0.5, 2];
    const w = [1, -2, 0.5, 3, 0.1, 0.2, 0.3, 0.4, -1, 2, 1.5, -0.5];
    const { want, got, ops } = await onBoth(() => tf.grad((x: tf.Tensor) => tf.softmax(x).mul(tf.tensor2d(w, [3, 4])))(tf.tensor2d(logits, [3, 4])));
    got.forEach((g, i) => expect(Math.abs(g - want[i])).toBeLessThan(1e-7));
    expect(ops.SoftmaxGrad).toBe(1);
    expect(ops['Reduce.Sum']).toBeUndefined();
  });

  it("dropout is one op each way on the device, with the cpu backend's mask: values and gradient equal", async () => {
    const layer = new SeededDropout({ rate: 0.3, seed: 12 });
    const x = Array.from({ length: 40 }, (_, i) => Math.cos(i) * 3);
    const run = () => {
      layer.startEpoch(2);
      const y = tf.tidy(() => layer.apply(tf.tensor2d(x, [5, 8]), { training: true }) as tf.Tensor);
      layer.startEpoch(2);
      const g = tf.grad((t: tf.Tensor) => (layer.apply(t, { training: true }) as tf.Tensor).mul(tf.range(0, 40).reshape([5, 8])))(tf.tensor2d(x, [5, 8]));
      const out = [...Array.from(y.dataSync()), ...Array.from(g.dataSync())];
      tf.dispose([y, g]);
      return out;
    };
    await tf.setBackend('cpu');
    const want = run();
    await tf.setBackend(GPUFLOW_CUDA);
    counter.take();
    const got = run();
    expect(got).toEqual(want);
    expect(want.slice(0, 40).filter((v) => v === 0).length).toBeGreaterThan(3);
    const ops = counter.take().ops;
    expect(ops.DropoutApply).toBe(3); // the first forward, then the forward and backward of the gradient
    expect(ops.DropoutMask).toBeUndefined();
  });

  it("a bias gradient's batch sum is one pass, no transpose", async () => {
    const { want, got, ops } = await onBoth(() => tf.sum(tf.tensor2d([1, 2, 3, 4, 5, 6, 7, 8], [4, 2]), 0));
    expect(want).toEqual([16, 20]);
    expect(got).toEqual(want);
    expect(ops).toEqual({ ReduceCols: 1 });
  });
});

describe('categorical cross-entropy in one op each way (cross-entropy.ts)', () => {
  it("the GPU checks' fused cases run the fused kernels and agree with tfjs-layers' loss on cpu, values and gradients", async () => {
    const results = (await runKernelChecks(4)).filter((r) => r.name.startsWith('categorical cross-entropy (fused'));
    expect(results.map((r) => r.name)).toEqual(['categorical cross-entropy (fused)', 'categorical cross-entropy (fused, zeros)']);
    for (const r of results) {
      expect(r.error).toBeUndefined();
      expect(r.ok).toBe(true);
      expect(r.kernels).toEqual(expect.arrayContaining([CROSS_ENTROPY, CROSS_ENTROPY_GRAD]));
    }
  }, 60_000);

  it('a model compiled on gpuflow-cuda trains with the fused loss: one op forward, one back', async () => {
    await tf.setBackend(GPUFLOW_CUDA);
    const spec = modelSpecFromParams({ kind: 'mlp', hiddenLayers: [8], batchSize: 16 }, {});
    const m = buildModel(spec, { task: 'classification', nFeatures: 4, nClasses: 3 }, 2);
    const x = tf.tensor2d(Array.from({ length: 64 }, (_, i) => Math.sin(i)), [16, 4]);
    const y = tf.oneHot(tf.tensor1d(Array.from({ length: 16 }, (_, i) => i % 3), 'int32'), 3).toFloat();
    await m.trainOnBatch(x, y);
    counter.take();
    const prof = await tf.profile(async () => tf.scalar(Number(await m.trainOnBatch(x, y))));
    const names = prof.kernels.map((k) => k.name);
    expect(names.filter((n) => n === CROSS_ENTROPY)).toHaveLength(1);
    expect(names.filter((n) => n === CROSS_ENTROPY_GRAD)).toHaveLength(1);
    expect(names).not.toContain('ClipByValue');
    expect(names).not.toContain('Log');
    tf.dispose([x, y]);
    m.dispose();
  });
});
