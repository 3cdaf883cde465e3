/**
 * The model node: linear regression, logistic regression or an MLP, with the settings a search
 * starts from (each search param overrides one of them per trial). Checked here with the same
 * schema the worker uses (common/tuning/trial.ts), so a bad setting fails before any worker runs.
 */
import { modelSpecFromParams, TrialSpecError, type Activation, type ModelKind, type OptimizerName } from '../../../../common/tuning/trial';
import type { OpDef } from '../types';
import { num } from '../arrays-core';
import { emitModelDescribe, type ModelMeta } from './values';

const model: OpDef = {
  spec: {
    op: 'model',
    label: 'Model',
    category: 'model tuning',
    doc: 'A TensorFlow.js model to tune: linear (regression), logistic (classification) or an MLP (either), with its training settings.',
    inputs: [],
    outputs: [{ name: 'out', type: 'model' }],
    params: [
      { name: 'kind', kind: 'enum', options: ['linear', 'logistic', 'mlp'], default: 'mlp' },
      { name: 'layers', kind: 'number', integer: true, min: 0, max: 16, default: 1, doc: 'hidden layers (mlp)' },
      { name: 'units', kind: 'number', integer: true, min: 1, default: 16, doc: 'units per hidden layer (mlp)' },
      { name: 'activation', kind: 'enum', options: ['relu', 'tanh', 'sigmoid', 'elu'], default: 'relu' },
      { name: 'dropout', kind: 'number', min: 0, max: 0.95, default: 0 },
      { name: 'learning_rate', kind: 'number', exclusiveMin: 0, max: 100, default: 0.01 },
      { name: 'optimizer', kind: 'enum', options: ['adam', 'sgd', 'rmsprop'], default: 'adam' },
      { name: 'batch_size', kind: 'number', integer: true, min: 1, default: 32 },
      { name: 'l2', kind: 'number', min: 0, default: 0 },
      { name: 'epochs', kind: 'number', integer: true, min: 1, default: 10, doc: 'epochs per trial for grid and random search' },
    ],
  },
  build(ctx) {
    const kind = (ctx.params.kind ?? 'mlp') as ModelKind;
    const base = {
      kind,
      hiddenLayers: kind === 'mlp' ? Array.from({ length: num(ctx, 'layers') }, () => num(ctx, 'units')) : [],
      activation: ctx.params.activation as Activation,
      dropout: num(ctx, 'dropout'),
      learningRate: num(ctx, 'learning_rate'),
      optimizer: ctx.params.optimizer as OptimizerName,
      batchSize: num(ctx, 'batch_size'),
      l2: num(ctx, 'l2'),
    };
    try {
      modelSpecFromParams(base, {}, 'params');
    } catch (e) {
      if (e instanceof TrialSpecError) ctx.fail('params', e.message.replace(/^params\./, ''));
      throw e;
    }
    const meta: ModelMeta = { base, epochs: num(ctx, 'epochs') };
    const key = emitModelDescribe(ctx, meta);
    return { out: { kind: 'opaque', portType: 'model', keys: [key], meta: { ...meta } } };
  },
};

export const TUNING_MODEL_OPS: OpDef[] = [model];
