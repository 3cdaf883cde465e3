import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { SearchController } from '../../../common/tuning/controller';
import { parseSearchSpace } from '../../../common/tuning/space';
import { makeClassification } from '../../../worker/kernels/tfjs/datasets';
import { runSearchInProcess } from '../../../worker/kernels/tfjs/search-in-process';
import { trainValidationSplit } from '../../../worker/kernels/tfjs/split';
import { TrialModelStore } from '../../../worker/kernels/tfjs/trial-store';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const data = trainValidationSplit(makeClassification({ nSamples: 240, nFeatures: 4, nInformative: 2, linearlySeparable: true, classSep: 1, seed: 5 }), { validationFraction: 0.25, seed: 5, stratify: true });

describe('searches that train real models', () => {
  it('successive halving keeps the planted best learning rate', async () => {
    // Plain SGD on a separable set: lr = 1 learns in an epoch, the small ones barely move.
    const controller = new SearchController({ method: 'successive-halving', space: parseSearchSpace({ learningRate: [0.0001, 0.001, 1, 0.01] }), nInitialParameters: 'grid', nInitialIter: 1, aggressiveness: 2, seed: 3 });
    const store = new TrialModelStore();
    const r = await runSearchInProcess(controller, data, { base: { kind: 'logistic', optimizer: 'sgd', batchSize: 16 }, metric: 'log-loss', store });
    expect(r.best?.params).toEqual({ learningRate: 1 });
    expect(r.best?.epochs).toBe(4);
    // 4 trials x 1 epoch, best 2 to 2 epochs, best 1 to 4: 4 + 2 + 2 = 8 epochs trained.
    expect(r.epochs).toBe(8);
    expect(r.leaderboard.filter((e) => e.status === 'halved')).toHaveLength(3);
    expect(store.ids()).toEqual([r.best?.trialId]); // losers freed, winner kept for saving
    expect(r.model?.meta.epochs).toBe(4);
    store.clear();
  });

  it('the same seed gives the same leaderboard; another seed another one', async () => {
    const spec = { method: 'random' as const, space: parseSearchSpace({ learningRate: { loguniform: [1e-3, 0.3] }, units: [4, 8], dropout: { uniform: [0, 0.3] } }), nTrials: 5, epochs: 2, seed: 21 };
    const run = async (seed: number) => {
      const store = new TrialModelStore();
      const r = await runSearchInProcess(new SearchController({ ...spec, seed }), data, { base: { kind: 'mlp' }, metric: 'accuracy', store });
      store.clear();
      return r.leaderboard;
    };
    const a = await run(21);
    const b = await run(21);
    expect(b).toEqual(a);
    expect(a.every((e) => typeof e.score === 'number')).toBe(true);
    const c = await run(22);
    expect(c.map((e) => e.params)).not.toEqual(a.map((e) => e.params));
  });
});
