// The gpuflow-cuda tfjs backend's host side over the fake device (native/fake-tf-ops.ts, the same
// argument records the CUDA kernels read): every case of checks.ts against tfjs's cpu backend,
// buffers freed, and the cpu fallback counted per kernel name.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeTfDevice } from '../../../native/fake-tf-ops';
import { GPUFLOW_CUDA } from '../../../worker/kernels/tfjs/cuda/backend';
import { runKernelChecks } from '../../../worker/kernels/tfjs/cuda/checks';
import { runDropoutChecks, runOptimizerChecks, runScaleChecks } from '../../../worker/kernels/tfjs/cuda/fused-checks';
import type { TfDevice } from '../../../worker/kernels/tfjs/cuda/device';
import { cpuFallbackCounts, fallbacksSince, registerGpuflowCuda } from '../../../worker/kernels/tfjs/cuda/register';
import { defaultTfjsEnvironment, GPU_MIN_MACS_PER_ROW } from '../../../worker/kernels/tfjs/backend';
import { clearDeviceData, datasetDigest, deviceDataStats, deviceScaledFeatures, nameSyntheticRows, rowsKey } from '../../../worker/kernels/tfjs/cuda/device-data';
import { fitScaler, scaleX } from '../../../worker/kernels/tfjs/scaling';
import type { DataSpec } from '../../../common/tuning/data-spec';
import { digestOf } from '../../../main/api/run-record';
import { resultDigest } from '../../../common/digest';
import type { RunResult } from '../../../common/results';
import { searchResultForDigest } from '../../../common/tuning/digest-view';
import { FusedAdam } from '../../../worker/kernels/tfjs/cuda/fused-optimizers';
import { SeededDropout } from '../../../worker/kernels/tfjs/dropout';
import { TrialWorker } from '../../../worker/kernels/tfjs/trial-task';
import { modelSpecFromParams, type TrialResult } from '../../../common/tuning/trial';
import { makeClassification } from '../../../worker/kernels/tfjs/datasets';
import { trainValidationSplit } from '../../../worker/kernels/tfjs/split';
import { trainTrial } from '../../../worker/kernels/tfjs/train';

const { device: calls, buffers } = fakeTfDevice();
// Sizes (elements) of every upload, so a test can tell whether the training rows went up again.
const writeSizes: number[] = [];
let writeCount = 0;
// A test that wants the uploaded values themselves sets this.
let onWrite: ((src: Float32Array | Int32Array) => void) | undefined;
const device: TfDevice = {
  ...calls,
  tfWrite: (id, src) => (writeSizes.push(src.length), writeCount++, onWrite?.(src), calls.tfWrite(id, src)),
};

beforeAll(() => registerGpuflowCuda(() => device));

describe('gpuflow-cuda over the fake device', () => {
  it('every kernel case and its gradient agrees with the cpu backend', async () => {
    const results = await runKernelChecks(3);
    const bad = results.filter((r) => !r.ok);
    expect(bad).toEqual([]);
    expect(results.length).toBeGreaterThan(90);
  }, 120_000);

  it("the fused optimizers' variables and state after 5 steps agree with tfjs's on cpu, and their state resumes there", async () => {
    const results = await runOptimizerChecks(2);
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.map((r) => r.name)).toContain('adam handed to cpu after 3');
    expect(results.find((r) => r.name === 'adam')?.stateNames).toEqual(['iter', '<var>/v0/m', '<var>/v1/m', '<var>/v0/v', '<var>/v1/v']);
    expect(results.length).toBe(14);
  });

  it('one fused kernel per variable and step, and no device buffer left after dispose', async () => {
    await tf.setBackend(GPUFLOW_CUDA);
    const before = buffers.size;
    const opt = new FusedAdam(0.01);
    const w = tf.tidy(() => tf.variable(tf.ones([3, 4])));
    const b = tf.tidy(() => tf.variable(tf.zeros([4])));
    const grads = { [w.name]: tf.fill([3, 4], 0.5), [b.name]: tf.fill([4], -1) };
    const prof = await tf.profile(() => opt.applyGradients(grads));
    expect(prof.kernels.filter((k) => k.name === 'GpuflowOptimizerStep').length).toBe(2);
    expect(prof.kernelNames.filter((k) => !['GpuflowOptimizerStep', 'Fill', 'ZerosLike'].includes(k))).toEqual([]);
    // Adam's first step moves each weight by lr against the gradient's sign (m/sqrt(v) = sign g after bias correction).
    expect(Array.from(w.dataSync())[0]).toBeCloseTo(1 - 0.01, 6);
    expect(Array.from(b.dataSync())[0]).toBeCloseTo(0.01, 6);
    opt.dispose();
    tf.dispose([w, b, ...Object.values(grads)]);
    expect(buffers.size).toBe(before);
  });

  it("dropout's device mask is the host's Philox mask, and a dropout layer draws and applies it in one device op", async () => {
    const checks = await runDropoutChecks(1);
    expect(checks.every((c) => c.ok)).toBe(true);
    // 100 001 draws at rate 0.9 keep about a tenth.
    expect(checks.at(-1)?.keptFraction).toBeGreaterThan(0.09);
    expect(checks.at(-1)?.keptFraction).toBeLessThan(0.11);
    await tf.setBackend(GPUFLOW_CUDA);
    const layer = new SeededDropout({ rate: 0.5, seed: 9 });
    layer.startEpoch(1);
    const x = tf.ones([4, 8]);
    const prof = await tf.profile(() => layer.apply(x, { training: true }) as tf.Tensor);
    expect(prof.kernelNames).toEqual(['GpuflowDropout']);
    tf.dispose(x);
  });

  it('frees every device buffer a disposed tensor held', async () => {
    await tf.setBackend(GPUFLOW_CUDA);
    const before = buffers.size;
    tf.tidy(() => {
      const x = tf.tensor2d([1, 2, 3, 4, 5, 6], [2, 3]);
      const y = tf.reshape(x, [3, 2]);
      return tf.sum(tf.matMul(y, x), 1);
    }).dispose();
    expect(buffers.size).toBe(before);
  });

  it("takes over a cpu tensor (tfjs's move) and hands a bool result back as 0 / 1 bytes", async () => {
    await tf.setBackend('cpu');
    const x = tf.tensor2d([1, -2, 3, -4], [2, 2]);
    await tf.setBackend(GPUFLOW_CUDA);
    const before = buffers.size;
    const y = tf.greater(tf.add(x, 1), 0);
    expect(y.dtype).toBe('bool');
    expect(y.dataSync()).toEqual(new Uint8Array([1, 0, 1, 0]));
    expect(buffers.size).toBeGreaterThan(before); // x moved onto the device
    tf.dispose([x, y]);
  });

  it('runs a kernel it lacks on the cpu backend and counts it by name', async () => {
    await tf.setBackend(GPUFLOW_CUDA);
    const before = cpuFallbackCounts();
    const x = tf.tensor2d([3, 1, 2, 9, 8, 7], [2, 3]);
    const c = tf.concat([x, x], 0); // Concat: no device kernel
    expect(Array.from(c.dataSync())).toEqual([3, 1, 2, 9, 8, 7, 3, 1, 2, 9, 8, 7]);
    const t = tf.tile(x, [1, 2]);
    expect(Array.from(t.dataSync())).toEqual([3, 1, 2, 3, 1, 2, 9, 8, 7, 9, 8, 7]);
    expect(fallbacksSince(before)).toEqual({ Concat: 1, Tile: 1 });
    tf.dispose([x, c, t]);
  });
});

describe('a whole trial on gpuflow-cuda (fake device)', () => {
  it("gives cpu's loss curve and metrics within float32 tolerance (adam, dropout, l2, 3 classes)", async () => {
    const ds = makeClassification({ nSamples: 240, nFeatures: 12, nInformative: 5, nClasses: 3, seed: 8 });
    const data = trainValidationSplit(ds, { validationFraction: 0.25, seed: 8 });
    const model = modelSpecFromParams({ kind: 'mlp', hiddenLayers: [24, 16], activation: 'elu', optimizer: 'adam', dropout: 0.2, l2: 1e-3, batchSize: 32 }, {});
    const spec = { trialId: 'curve', seed: 4, epochs: 3, metric: 'accuracy' as const, model };
    await tf.setBackend('cpu');
    const cpu = await trainTrial(spec, data);
    await tf.setBackend(GPUFLOW_CUDA);
    const gpu = await trainTrial(spec, data);
    expect(gpu.backend).toBe(GPUFLOW_CUDA);
    expect(gpu.history).toHaveLength(3);
    gpu.history.forEach((h, i) => expect(Math.abs(h.loss - cpu.history[i].loss)).toBeLessThan(1e-4 * cpu.history[i].loss));
    expect(gpu.metrics.accuracy).toBe(cpu.metrics.accuracy);
  }, 120_000);
});

describe('the tuning digest across backend families (fake device)', () => {
  it('a search trained on gpuflow-cuda and on cpu gives one run digest, though their exact scores differ', async () => {
    const ds = makeClassification({ nSamples: 240, nFeatures: 12, nInformative: 5, nClasses: 3, seed: 8 });
    const data = trainValidationSplit(ds, { validationFraction: 0.25, seed: 8 });
    const lrs = [0.003, 0.01, 0.03];
    const search = async (backend: string) => {
      await tf.setBackend(backend);
      const rows = [];
      for (const [i, learningRate] of lrs.entries()) {
        const model = modelSpecFromParams({ kind: 'mlp', hiddenLayers: [24, 16], optimizer: 'adam', dropout: 0.1, batchSize: 32 }, { learningRate });
        const r = await trainTrial({ trialId: `t${i}`, seed: 4 + i, epochs: 2, metric: 'log-loss', model }, data);
        rows.push({ trialId: r.trialId, params: { learningRate }, epochs: r.epochs, score: r.score, metrics: r.metrics });
      }
      rows.sort((a, b) => b.score - a.score);
      const leaderboard = rows.map((r, k) => ({ rank: k + 1, ...r, status: k === 0 ? 'best' : 'finished' }));
      const value = { kind: 'search-result', strategy: 'grid', metric: 'log-loss', trials: 3, bestScore: leaderboard[0].score, best: { trialId: leaderboard[0].trialId, score: leaderboard[0].score }, leaderboard };
      const run: RunResult = { runId: backend, status: 'finished', results: { search: { kind: 'json', value } }, stats: { tasks: 0, durationMs: 0, workers: [], transfers: { count: 0, bytes: 0, ipc: { count: 0, bytes: 0 }, host: { count: 0, bytes: 0 }, hostReasons: {} }, restarts: 0, reused: { tasks: 0, nodes: [] } } };
      return { value, digest: digestOf(run) };
    };
    const cpu = await search('cpu');
    const gpu = await search(GPUFLOW_CUDA);
    // The families differ in the last bits (float32 sums in another order): at the default 10
    // digits the results would digest apart ...
    expect(resultDigest(gpu.value)).not.toBe(resultDigest(cpu.value));
    expect(gpu.value.leaderboard.map((r) => r.trialId)).toEqual(cpu.value.leaderboard.map((r) => r.trialId));
    // ... and with the scores and metrics at TUNING_DIGEST_DIGITS they are one result.
    expect(gpu.digest).toBe(cpu.digest);
    // A real difference in a score still shows.
    const moved = { ...gpu.value, leaderboard: gpu.value.leaderboard.map((r, k) => (k === 1 ? { ...r, score: r.score * 1.01 } : r)) };
    expect(resultDigest(searchResultForDigest(moved))).not.toBe(resultDigest(searchResultForDigest(cpu.value)));
  }, 120_000);
});

describe('training rows kept on the device between trials (fake device)', () => {
  const ds = makeClassification({ nSamples: 200, nFeatures: 10, nInformative: 4, nClasses: 3, seed: 6 });
  const data = trainValidationSplit(ds, { validationFraction: 0.25, seed: 6 });
  const spec = (id: string, units: number) => ({ trialId: id, seed: 2, epochs: 2, metric: 'accuracy' as const, model: modelSpecFromParams({ kind: 'mlp', hiddenLayers: [units], batchSize: 32 }, {}) });

  it('a second trial over the same rows uploads nothing and trains as the first did; freed on clear', async () => {
    await tf.setBackend(GPUFLOW_CUDA);
    clearDeviceData();
    const before = buffers.size;
    const s0 = deviceDataStats();
    const first = await trainTrial(spec('a', 16), data);
    const writes = writeCount;
    const again = await trainTrial(spec('a', 16), data);
    const other = await trainTrial(spec('b', 8), data);
    const s1 = deviceDataStats();
    expect(s1.misses - s0.misses).toBe(1);
    expect(s1.hits - s0.hits).toBe(2);
    expect(s1.entries).toBe(1);
    expect(s1.bytes).toBe(data.train.nRows * (10 + 3) * 4);
    expect(again.history).toEqual(first.history);
    expect(other.history).toHaveLength(2);
    // The repeat trial wrote no rows: only its weights, batch indices and the validation rows.
    expect(writeSizes.slice(writes).some((n) => n === data.train.nRows * 10)).toBe(false);
    expect(buffers.size).toBeGreaterThan(before);
    clearDeviceData();
    expect(buffers.size).toBe(before);
  }, 60_000);

  it('caches nothing past GPUFLOW_TUNING_DEVICE_DATA_MB, and another dataset is another entry', async () => {
    await tf.setBackend(GPUFLOW_CUDA);
    clearDeviceData();
    process.env.GPUFLOW_TUNING_DEVICE_DATA_MB = '0';
    try {
      const s0 = deviceDataStats();
      await trainTrial(spec('a', 8), data);
      await trainTrial(spec('a', 8), data);
      expect(deviceDataStats().misses - s0.misses).toBe(2);
      expect(deviceDataStats().entries).toBe(0);
    } finally {
      delete process.env.GPUFLOW_TUNING_DEVICE_DATA_MB;
    }
    const other = trainValidationSplit(makeClassification({ nSamples: 200, nFeatures: 10, nInformative: 4, nClasses: 3, seed: 7 }), { validationFraction: 0.25, seed: 6 });
    await trainTrial(spec('a', 8), data);
    await trainTrial(spec('a', 8), other);
    expect(deviceDataStats().entries).toBe(2);
    expect(datasetDigest(other.train)).not.toBe(datasetDigest(data.train));
    clearDeviceData();
  }, 60_000);

  it("uploads the training rows raw and scales them on the device to the host scaleX's bytes", async () => {
    expect((await runScaleChecks(1)).map((c) => c.differing)).toEqual([0, 0, 0, 0]);
    await tf.setBackend(GPUFLOW_CUDA);
    clearDeviceData();
    const s = fitScaler(data.train);
    const scaled = deviceScaledFeatures(s, data.train);
    expect(Array.from(scaled.dataSync())).toEqual(Array.from(scaleX(s, data.train.x, data.train.nRows)));
    scaled.dispose();
    const uploads: (Float32Array | Int32Array)[] = [];
    onWrite = (src) => {
      if (src.length === data.train.x.length) uploads.push(src.slice());
    };
    try {
      await trainTrial(spec('raw', 8), data);
    } finally {
      onWrite = undefined;
    }
    expect(uploads).toHaveLength(1);
    expect(Array.from(uploads[0])).toEqual(Array.from(data.train.x));
    clearDeviceData();
  }, 60_000);

  it("names synthetic rows by their DataSpec: another build of that spec shares the device entry; a table's rows keep their digest", async () => {
    await tf.setBackend(GPUFLOW_CUDA);
    clearDeviceData();
    const dataSpec: DataSpec = { source: { kind: 'classification', nSamples: 200, nFeatures: 10, nInformative: 4, nClasses: 3, seed: 6 }, split: { validationFraction: 0.25, seed: 6 } };
    const build = () => {
      const s = dataSpec.source.kind === 'classification' ? dataSpec.source : undefined;
      if (!s) throw new Error('unreachable');
      const d = trainValidationSplit(makeClassification(s), dataSpec.split);
      nameSyntheticRows(dataSpec, d.train);
      return d;
    };
    // Two workers' caches (or one after a clear) hold distinct objects with the same rows.
    const a = build();
    const b = build();
    expect(a.train).not.toBe(b.train);
    expect(rowsKey(a.train)).toBe(`spec:${JSON.stringify(dataSpec)}`);
    expect(rowsKey(b.train)).toBe(rowsKey(a.train));
    const s0 = deviceDataStats();
    const first = await trainTrial(spec('a', 8), a);
    const second = await trainTrial(spec('a', 8), b);
    expect(deviceDataStats().misses - s0.misses).toBe(1);
    expect(deviceDataStats().hits - s0.hits).toBe(1);
    expect(second.history).toEqual(first.history);
    // Rows the spec does not determine: a table source, and rows nobody named.
    const table = trainValidationSplit(makeClassification({ nSamples: 200, nFeatures: 10, nInformative: 4, nClasses: 3, seed: 6 }), { validationFraction: 0.25, seed: 6 });
    nameSyntheticRows({ source: { kind: 'table', ref: 't', features: ['a'], target: 'y', task: 'classification' }, split: dataSpec.split }, table.train);
    expect(rowsKey(table.train)).toBe(`sha256:${datasetDigest(table.train)}`);
    expect(rowsKey(data.train)).toBe(`sha256:${datasetDigest(data.train)}`);
    clearDeviceData();
  }, 60_000);
});

describe('a GPU worker with gpuflow-cuda (fake device)', () => {
  const env = { ...defaultTfjsEnvironment, registerGpuflowCuda: () => (registerGpuflowCuda(() => device), null) };
  const data = { source: { kind: 'classification', nSamples: 300, nFeatures: 40, nInformative: 6, nClasses: 3, seed: 2 }, split: { validationFraction: 0.25, seed: 2 } };
  const trial = (id: string, units: number) => ({
    trialId: id,
    model: modelSpecFromParams({ kind: 'mlp', hiddenLayers: [units, units], batchSize: 64 }, {}),
    seed: 5,
    epochs: 2,
    metric: 'accuracy',
  });

  it('trains large trials on the GPU and small ones on wasm, and each result says which and why', async () => {
    const w = new TrialWorker({ gpu: true, env });
    const sel = await w.init();
    expect(sel).toMatchObject({ backend: GPUFLOW_CUDA, smallTrials: 'wasm', gpuRequestedButCpu: false });
    // 40 x 8 + 8 x 8 + 8 x 3 = 408 multiply-adds per row; 40 x 128 + 128 x 128 + 128 x 3 = 21 888
    const small = (await w.run('train', { trial: trial('s', 8), data })) as TrialResult;
    const large = (await w.run('train', { trial: trial('l', 128), data })) as TrialResult;
    expect(small.backend).toBe('wasm');
    expect(small.backendRule).toBe(`408 multiply-adds per row < ${GPU_MIN_MACS_PER_ROW}: wasm (faster than the GPU for small models)`);
    expect(large.backend).toBe(GPUFLOW_CUDA);
    expect(large.backendRule).toBe(`21888 multiply-adds per row >= ${GPU_MIN_MACS_PER_ROW}: GPU`);
    // The validation pass predicts in one batch here: no kernel left the device.
    expect(large.cpuFallbacks).toBeUndefined();
    expect(large.history).toHaveLength(2);
    w.dispose();
  }, 120_000);
});

