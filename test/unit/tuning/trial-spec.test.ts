import { describe, expect, it } from 'vitest';
import { modelSpecFromParams, parseTrialSpec, scoreOf } from '../../../common/tuning/trial';

describe('model spec from search params', () => {
  it('applies tunable params over the base and defaults', () => {
    expect(modelSpecFromParams({ kind: 'mlp', hiddenLayers: [8, 8] }, { learningRate: 0.1, optimizer: 'sgd', units: 32 })).toEqual({
      kind: 'mlp', hiddenLayers: [32, 32], activation: 'relu', dropout: 0, learningRate: 0.1, optimizer: 'sgd', batchSize: 32, l2: 0,
    });
    expect(modelSpecFromParams({ kind: 'mlp' }, { layers: 3 }).hiddenLayers).toEqual([16, 16, 16]);
  });

  it('names the bad param', () => {
    expect(() => modelSpecFromParams({ kind: 'mlp' }, { momentum: 0.9 })).toThrow(/params\.momentum: not a tunable model parameter/);
    expect(() => modelSpecFromParams({ kind: 'mlp' }, { optimizer: 'lbfgs' })).toThrow(/params\.optimizer/);
    expect(() => modelSpecFromParams({ kind: 'mlp' }, { dropout: 1 })).toThrow('params.dropout: must be < 1');
    expect(() => modelSpecFromParams({ kind: 'mlp' }, { units: 2.5 })).toThrow(/params\.hiddenLayers\.0: must be an integer/);
  });

  it('parses a trial spec crossing the process boundary', () => {
    const model = modelSpecFromParams({ kind: 'logistic' }, {});
    expect(parseTrialSpec({ trialId: 't0', model, seed: 1, epochs: 3, metric: 'accuracy' }).epochs).toBe(3);
    expect(() => parseTrialSpec({ trialId: 't0', model, seed: 1, epochs: 0, metric: 'accuracy' }, 'task.params')).toThrow('task.params.epochs: must be positive');
  });

  it('scores are higher-is-better', () => {
    expect(scoreOf('mse', 2)).toBe(-2);
    expect(scoreOf('log-loss', 0.3)).toBe(-0.3);
    expect(scoreOf('r2', 0.9)).toBe(0.9);
  });
});
