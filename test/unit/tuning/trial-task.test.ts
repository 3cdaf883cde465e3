import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { tableFromArrays } from 'apache-arrow';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { modelSpecFromParams, type TrialResult } from '../../../common/tuning/trial';
import { TrialWorker } from '../../../worker/kernels/tfjs/trial-task';

const cpuOnly = {
  importModule: async (s: string) => {
    throw new Error(`Cannot find package '${s}'`);
  },
  setBackend: async (name: 'tensorflow' | 'wasm' | 'cpu') => (await tf.setBackend(name)) && name === 'cpu',
  usingGpu: () => undefined,
  registerGpuflowCuda: () => 'no CUDA device (test)',
};

const data = { source: { kind: 'classification', nSamples: 200, nFeatures: 3, nInformative: 2, linearlySeparable: true, seed: 4 }, split: { validationFraction: 0.25, seed: 4 } };
const trial = (epochs: number) => ({ trialId: 't0', model: modelSpecFromParams({ kind: 'logistic' }, { learningRate: 0.1 }), seed: 3, epochs, metric: 'accuracy' });

describe('trial tasks in a worker', () => {
  it('trains, continues, saves and stops a trial from plain task params', async () => {
    const w = new TrialWorker({ gpu: true, env: cpuOnly });
    const sel = await w.init();
    expect(sel.backend).toBe('cpu');
    expect(sel.gpuRequestedButCpu).toBe(true);
    const epochs: number[] = [];
    const a = (await w.run('train', { trial: trial(2), data }, { onEpoch: (e) => epochs.push(e.epoch) })) as TrialResult;
    const b = (await w.run('train', { trial: trial(5), data }, { onEpoch: (e) => epochs.push(e.epoch) })) as TrialResult;
    expect(epochs).toEqual([1, 2, 3, 4, 5]);
    expect(a.epochs).toBe(2);
    expect(b.metrics.accuracy).toBeGreaterThan(0.9);
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-task-'));
    try {
      expect(await w.run('save', { trialId: 't0', dir })).toEqual({ dir, epochs: 5 });
      expect(existsSync(path.join(dir, 'model.json')) && existsSync(path.join(dir, 'weights.bin'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await w.run('stop', { trialId: 't0' })).toEqual({ freed: true });
    expect(await w.run('stop', { trialId: 't0' })).toEqual({ freed: false });
    w.dispose();
  });

  it('reads a table source through the worker and names bad params', async () => {
    const w = new TrialWorker({ gpu: false, env: cpuOnly });
    const n = 60;
    const x = Float64Array.from({ length: n }, (_, i) => i / n);
    const table = tableFromArrays({ x, y: Float64Array.from(x, (v) => 3 * v + 1) });
    const r = (await w.run(
      'train',
      { trial: { ...trial(3), model: modelSpecFromParams({ kind: 'linear' }, { learningRate: 0.1 }), metric: 'r2' }, data: { source: { kind: 'table', ref: 'df1', features: ['x'], target: 'y', task: 'regression' }, split: { validationFraction: 0.2, seed: 1 } } },
      { resolveTable: (ref) => (ref === 'df1' ? table : undefined) },
    )) as TrialResult;
    expect(r.metrics.r2).toBeGreaterThan(0.9);
    await expect(w.run('train', { trial: trial(1), data: { ...data, split: { validationFraction: 1.5, seed: 0 } } })).rejects.toThrow(/trial task 'train' params\.data\.split\.validationFraction/);
    await expect(w.run('train', { trial: trial(1), data: { source: { kind: 'table', ref: 'nope', features: ['x'], target: 'y', task: 'regression' }, split: { validationFraction: 0.2, seed: 1 } } })).rejects.toThrow("trial task 'train' params.data.source.ref: no table 'nope' on this worker");
    await expect(w.run('save', { trialId: 'zz', dir: '/tmp/x' })).rejects.toThrow('trial zz is not held by this worker');
    await expect(w.run('fit', {})).rejects.toThrow("unknown trial op 'fit' (known: train, stop, save)");
    w.dispose();
  });
});
