import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { modelSpecFromParams, type TrialSpec } from '../../../common/tuning/trial';
import { makeClassification, makeRegression } from '../../../worker/kernels/tfjs/datasets';
import { loadTrialModel, saveTrialModel } from '../../../worker/kernels/tfjs/persist';
import { predict } from '../../../worker/kernels/tfjs/predict';
import { trainValidationSplit } from '../../../worker/kernels/tfjs/split';
import { trainTrial } from '../../../worker/kernels/tfjs/train';
import { TrialModelStore } from '../../../worker/kernels/tfjs/trial-store';
import { disposeModel } from '../../../worker/kernels/tfjs/trained-model';

beforeAll(async () => {
  await tf.setBackend('cpu'); // the determinism claims are for the cpu backend
});

const separable = trainValidationSplit(makeClassification({ nSamples: 300, nFeatures: 4, nInformative: 2, linearlySeparable: true, classSep: 1, seed: 1 }), { validationFraction: 0.3, seed: 1, stratify: true });
const threeClass = trainValidationSplit(makeClassification({ nSamples: 300, nFeatures: 4, nInformative: 2, nClasses: 3, classSep: 2, flipY: 0, seed: 2 }), { validationFraction: 0.3, seed: 2 });
const regression = trainValidationSplit(makeRegression({ nSamples: 300, nFeatures: 5, nInformative: 3, noise: 10, seed: 3 }), { validationFraction: 0.3, seed: 3 });

function spec(trialId: string, kind: 'linear' | 'logistic' | 'mlp', params: Record<string, number | string>, epochs: number, metric: TrialSpec['metric']): TrialSpec {
  return { trialId, model: modelSpecFromParams({ kind }, params), seed: 11, epochs, metric };
}

describe('training real models on small data', () => {
  it('logistic regression separates a linearly separable set (accuracy > 0.9)', async () => {
    const epochs: number[] = [];
    const r = await trainTrial(spec('lr', 'logistic', { learningRate: 0.1 }, 10, 'accuracy'), separable, { onEpoch: (e) => epochs.push(e.epoch) });
    expect(r.metrics.accuracy).toBeGreaterThan(0.9);
    expect(r.score).toBe(r.metrics.accuracy);
    expect(epochs).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(r.history[9].loss).toBeLessThan(r.history[0].loss);
    expect(r.backend).toBe('cpu');
  });

  it('gives the event loop a turn after each epoch: a progress report (an IPC send) leaves before the next epoch ends', async () => {
    // onEpoch schedules a macrotask, as the worker's IPC send does; it must run before the next epoch reports.
    const order: string[] = [];
    await trainTrial(spec('turns', 'logistic', { learningRate: 0.1 }, 3, 'accuracy'), separable, {
      onEpoch: (e) => {
        order.push(`epoch ${e.epoch}`);
        setTimeout(() => order.push(`sent ${e.epoch}`), 0);
      },
    });
    expect(order).toEqual(['epoch 1', 'sent 1', 'epoch 2', 'sent 2', 'epoch 3', 'sent 3']);
  });

  it('linear regression fits a noisy linear target (R^2 > 0.9)', async () => {
    const r = await trainTrial(spec('lin', 'linear', { learningRate: 0.1, batchSize: 32 }, 15, 'r2'), regression);
    expect(r.metrics.r2).toBeGreaterThan(0.9);
    expect(r.score).toBeCloseTo(r.metrics.r2 ?? NaN, 12);
    expect(r.metrics.mse).toBeGreaterThan(0);
  });

  it('an MLP with dropout learns three classes', async () => {
    const r = await trainTrial(spec('mlp', 'mlp', { learningRate: 0.05, units: 16, dropout: 0.2 }, 10, 'log-loss'), threeClass);
    expect(r.metrics.accuracy).toBeGreaterThan(0.85);
    expect(r.score).toBe(-(r.metrics['log-loss'] ?? NaN));
  });
});

describe('resuming and reproducibility (cpu backend)', () => {
  const mlp = (epochs: number) => spec('m', 'mlp', { learningRate: 0.05, units: 8, dropout: 0.3, optimizer: 'adam' }, epochs, 'accuracy');

  it('the same seed gives the same curve; 2 then 4 epochs equals 4 at once, in memory and from disk', async () => {
    const straight = new TrialModelStore();
    const a = await trainTrial(mlp(4), threeClass, { store: straight });

    const again = await trainTrial(mlp(4), threeClass);
    expect(again.history).toEqual(a.history);

    const store = new TrialModelStore();
    const first = await trainTrial(mlp(2), threeClass, { store });
    const second = await trainTrial(mlp(4), threeClass, { store });
    expect([...first.history, ...second.history]).toEqual(a.history);

    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-trial-'));
    try {
      const halfway = new TrialModelStore();
      await trainTrial(mlp(2), threeClass, { store: halfway });
      const held = halfway.get('m');
      if (!held) throw new Error('model not kept');
      await saveTrialModel(held, dir);
      halfway.clear();
      const resumed = await trainTrial(mlp(4), threeClass, { resumeFrom: dir });
      expect(resumed.history).toEqual(a.history.slice(2));
    } finally {
      rmSync(dir, { recursive: true, force: true });
      straight.clear();
      store.clear();
    }
  });

  it('a saved model loads and predicts the same, with labels and metadata', async () => {
    const store = new TrialModelStore();
    await trainTrial(spec('p', 'logistic', { learningRate: 0.1 }, 3, 'accuracy'), separable, { store });
    const held = store.get('p');
    if (!held) throw new Error('model not kept');
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-model-'));
    try {
      await saveTrialModel(held, dir);
      const loaded = await loadTrialModel(dir);
      expect(loaded.meta).toEqual(held.meta);
      const rows = separable.validation;
      const a = predict(held, rows.x, rows.nRows);
      const b = predict(loaded, rows.x, rows.nRows);
      expect(b).toEqual(a);
      disposeModel(loaded.model);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      store.clear();
    }
  });

  it('frees every tensor once the store lets go', async () => {
    const before = tf.memory().numTensors;
    const store = new TrialModelStore();
    await trainTrial(mlp(2), threeClass, { store });
    expect(tf.memory().numTensors).toBeGreaterThan(before);
    store.clear();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('stops before the next epoch when asked', async () => {
    let n = 0;
    const r = await trainTrial(mlp(5), threeClass, { shouldStop: () => n >= 2, onEpoch: () => n++ });
    expect(r.stopped).toBe(true);
    expect(r.epochs).toBe(2);
  });
});

describe('bad requests say what is wrong', () => {
  it('metric and model must fit the task', async () => {
    await expect(trainTrial(spec('x', 'logistic', {}, 1, 'r2'), separable)).rejects.toThrow("trial x: metric 'r2' does not apply to classification; use one of accuracy, log-loss");
    await expect(trainTrial(spec('x', 'linear', {}, 1, 'accuracy'), separable)).rejects.toThrow(/linear regression model needs a regression target/);
  });

  it('a trial held with another spec is not silently reused', async () => {
    const store = new TrialModelStore();
    await trainTrial(spec('s', 'logistic', { learningRate: 0.1 }, 1, 'accuracy'), separable, { store });
    await expect(trainTrial(spec('s', 'logistic', { learningRate: 0.2 }, 2, 'accuracy'), separable, { store })).rejects.toThrow(/built from another spec or seed/);
    store.clear();
  });
});
