import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { modelSpecFromParams } from '../../../common/tuning/trial';
import { makeClassification } from '../../../worker/kernels/tfjs/datasets';
import { packModel, unpackModel } from '../../../worker/kernels/tfjs/pack';
import { trainValidationSplit } from '../../../worker/kernels/tfjs/split';
import { trainTrial } from '../../../worker/kernels/tfjs/train';
import { TrialModelStore } from '../../../worker/kernels/tfjs/trial-store';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const data = trainValidationSplit(makeClassification({ nSamples: 200, nFeatures: 4, nInformative: 2, nClasses: 3, classSep: 2, seed: 2 }), { validationFraction: 0.3, seed: 2 });
const trial = (epochs: number) => ({ trialId: 'p', model: modelSpecFromParams({ kind: 'mlp' }, { learningRate: 0.05, units: 8, dropout: 0.3, optimizer: 'adam' }), seed: 4, epochs, metric: 'accuracy' as const });

describe('a packed model (weights inside a task output)', () => {
  it('goes through JSON and trains on exactly as the model kept in memory (optimizer state included)', async () => {
    const straight = await trainTrial(trial(4), data);

    const store = new TrialModelStore();
    await trainTrial(trial(2), data, { store });
    const packed = JSON.parse(JSON.stringify(await packModel(store.get('p')!)));
    store.clear();
    const next = new TrialModelStore();
    next.set('p', await unpackModel(packed));
    const resumed = await trainTrial(trial(4), data, { store: next });
    next.clear();
    expect(resumed.history).toEqual(straight.history.slice(2));
    expect(resumed.score).toBe(straight.score);
  });

  it('refuses something that is not a packed model, naming it', async () => {
    await expect(unpackModel({ nope: 1 } as never, 'trial t3')).rejects.toThrow(/trial t3: not a packed model/);
  });
});
