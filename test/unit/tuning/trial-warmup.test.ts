// The first gpuflow-cuda trial's warm-up (worker/kernels/tfjs/trial-warmup.ts) over the fake
// device: a trial trains to the same bits after it, it leaves no tensor and no device buffer of
// its own, it runs while the rows are still being built, and only where it is due.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeTfDevice } from '../../../native/fake-tf-ops';
import type { DataSpec } from '../../../common/tuning/data-spec';
import { modelSpecFromParams, type TrialResult, type TrialSpec } from '../../../common/tuning/trial';
import type { BackendSelection } from '../../../worker/kernels/tfjs/backend';
import { GPUFLOW_CUDA } from '../../../worker/kernels/tfjs/cuda/backend';
import { clearDeviceData } from '../../../worker/kernels/tfjs/cuda/device-data';
import { registerGpuflowCuda } from '../../../worker/kernels/tfjs/cuda/register';
import { makeClassification } from '../../../worker/kernels/tfjs/datasets';
import { trainValidationSplit } from '../../../worker/kernels/tfjs/split';
import { trainOnChosenBackend } from '../../../worker/kernels/tfjs/trial-backend';
import { buildWhileWarming, WARMUP_BATCHES, warmTrialKernels, warmupBatches, warmupPlan } from '../../../worker/kernels/tfjs/trial-warmup';

const { device, buffers } = fakeTfDevice();
const sel: BackendSelection = { backend: 'gpuflow-cuda', candidate: 'gpuflow-cuda', tried: [], gpuRequestedButCpu: false, smallTrials: 'cpu' };
const source = { kind: 'classification', nSamples: 240, nFeatures: 32, nInformative: 4, nClasses: 3, seed: 1 } as const;
const dataSpec: DataSpec = { source, split: { validationFraction: 0.25, seed: 2, stratify: true } };
const data = trainValidationSplit(makeClassification(source), dataSpec.split);
// 32 x 128 + 128 x 128 + 128 x 3 = 20 864 multiply-adds per row: past the rule's 16 000, a GPU trial.
const model = modelSpecFromParams({ kind: 'mlp', batchSize: 32, dropout: 0.1 }, { layers: 2, units: 128, optimizer: 'adam', learningRate: 0.01 });
const trial: TrialSpec = { trialId: 't1', model, seed: 11, epochs: 2, metric: 'accuracy' };
const shape = { task: 'classification', nFeatures: 32, nClasses: 3 } as const;

async function train(): Promise<TrialResult> {
  const { result } = await trainOnChosenBackend(sel, trial, data, {});
  // The rows' device cache would hold the trial's rows between the runs compared.
  clearDeviceData();
  return result;
}

beforeAll(async () => {
  registerGpuflowCuda(() => device);
  await tf.setBackend('cpu');
});

describe("the first trial's warm-up", () => {
  // First in the file: the warm-up is the first thing this process runs on gpuflow-cuda.
  it('leaves the trial it precedes the same to the bit (its losses, metrics and score, dropout on)', async () => {
    await warmTrialKernels(trial.model, shape);
    expect(tf.getBackend()).toBe(GPUFLOW_CUDA);
    const warmed = await train();
    const cold = await train();
    expect(warmed.backend).toBe(GPUFLOW_CUDA);
    expect(warmed.history).toHaveLength(2);
    expect(warmed.history.map((h) => h.loss)).toEqual(cold.history.map((h) => h.loss));
    expect(warmed).toEqual(cold);
  });

  it('leaves no tensor behind, and no device buffer beyond the constants the trial makes too', async () => {
    const tensors = tf.memory().numTensors;
    await warmTrialKernels(trial.model, shape);
    expect(tf.memory().numTensors).toBe(tensors);
    // The backend's constant buffers (shared repeated values) outlive tensors by design; the
    // first warm-up and the trials above made them, so a second warm-up makes no buffer at all.
    const held = new Set(buffers.keys());
    await warmTrialKernels(trial.model, shape);
    expect(new Set(buffers.keys())).toEqual(held);
    expect(tf.memory().numTensors).toBe(tensors);
  });

  it('runs while the rows are being built: the fill is started first and is still pending when the warm-up ends', async () => {
    const events: string[] = [];
    let finishFill!: (v: string) => void;
    let warmEnded!: () => void;
    const warmupOver = new Promise<void>((r) => (warmEnded = r));
    const rows = buildWhileWarming(
      () => {
        events.push('fill-start');
        return new Promise<string>((r) => (finishFill = r)).then((v) => (events.push('fill-done'), v));
      },
      async () => {
        events.push('warmup-start');
        await warmTrialKernels(trial.model, shape);
        events.push('warmup-done');
        warmEnded();
      },
    );
    await warmupOver;
    expect(events).toEqual(['fill-start', 'warmup-start', 'warmup-done']);
    finishFill('rows');
    expect(await rows).toBe('rows');
    expect(events.at(-1)).toBe('fill-done');
  });

  it('holds the rows back until the warm-up is over, also when the fill fails', async () => {
    let warmOver!: () => void;
    const warm = () => new Promise<void>((r) => (warmOver = r));
    let settled = false;
    const failing = buildWhileWarming(() => Promise.reject(new Error('fill failed')), warm).catch((e: unknown) => ((settled = true), e));
    await new Promise((r) => setTimeout(r, 0));
    expect(settled).toBe(false);
    warmOver();
    expect(await failing).toEqual(new Error('fill failed'));
    expect(await buildWhileWarming(() => Promise.resolve(7), undefined)).toBe(7);
  });

  it('a warm-up that fails frees what it made and does not reject', async () => {
    const tensors = tf.memory().numTensors;
    // A linear model cannot fit a classification task: buildModel throws.
    await expect(warmTrialKernels(modelSpecFromParams({ kind: 'linear' }, {}), shape)).resolves.toBeUndefined();
    expect(tf.memory().numTensors).toBe(tensors);
  });

  it('is due only when asked for, for a synthetic source whose trial the size rule sends to gpuflow-cuda', () => {
    const on = { GPUFLOW_TRIAL_WARMUP: String(WARMUP_BATCHES) };
    // Off unless asked for (it did not pay on the GPU machine).
    expect(warmupPlan(sel, trial, dataSpec, {})).toBeNull();
    // 240 rows, 180 of them training rows: 6 batches of 32 an epoch, fewer than the 32 asked.
    expect(warmupPlan(sel, trial, dataSpec, on)).toEqual({ shape, batches: 6 });
    expect(warmupPlan(sel, trial, dataSpec, { GPUFLOW_TRIAL_WARMUP: '4' })).toEqual({ shape, batches: 4 });
    expect(warmupPlan(sel, trial, dataSpec, { GPUFLOW_TRIAL_WARMUP: '0' })).toBeNull();
    expect(warmupBatches({})).toBe(0);
    expect(warmupBatches({ GPUFLOW_TRIAL_WARMUP: '5' })).toBe(5);
    expect(() => warmupPlan(sel, trial, dataSpec, { GPUFLOW_TRIAL_WARMUP: 'yes' })).toThrow("GPUFLOW_TRIAL_WARMUP must be a number of batches from 0 (off) to 10000, got 'yes'");
    const small = { ...trial, model: { ...model, hiddenLayers: [16] } };
    expect(warmupPlan(sel, small, dataSpec, on)).toBeNull();
    expect(warmupPlan({ ...sel, backend: 'wasm', candidate: 'wasm', smallTrials: undefined }, trial, dataSpec, on)).toBeNull();
    const table: DataSpec = { source: { kind: 'table', ref: 'rows', features: ['a'], target: 'b', task: 'classification' }, split: dataSpec.split };
    expect(warmupPlan(sel, trial, table, on)).toBeNull();
    const regression: DataSpec = { source: { kind: 'regression', nSamples: 100, nFeatures: 200, seed: 3 }, split: dataSpec.split };
    expect(warmupPlan(sel, { ...trial, metric: 'r2' }, regression, on)).toEqual({ shape: { task: 'regression', nFeatures: 200, nClasses: 0 }, batches: 3 });
  });
});
