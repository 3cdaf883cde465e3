/**
 * Model-tuning data nodes: a seeded synthetic data set (scikit-learn's make_classification /
 * make_regression, worker/kernels/tfjs/datasets.ts) and a seeded train / validation split. Both
 * only describe the data; trials build it in their worker. Left unconnected, each runs one
 * 'dataset-info' task that builds it and reports rows, features and class counts.
 */
import { dfOpSpec } from '../../../../common/df/op-params';
import type { OpDef } from '../types';
import { num } from '../arrays-core';
import { frameInput, listColumns, requireColumns, rowBytes, str, strList } from '../df/meta';
import { dataDeps, datasetInput, datasetValue, emitDatasetInfo, type DatasetMeta, type SyntheticSource } from './values';

const datasetSynthetic: OpDef = {
  spec: {
    op: 'dataset_synthetic',
    label: 'Synthetic dataset',
    category: 'model tuning',
    doc: 'Seeded classification (Gaussian clouds, optional linear separability) or regression (y = X·coef + noise) rows, generated inside each worker.',
    inputs: [],
    outputs: [{ name: 'out', type: 'dataset' }],
    params: [
      { name: 'task', kind: 'enum', options: ['classification', 'regression'], default: 'classification' },
      { name: 'rows', kind: 'number', integer: true, min: 2, default: 1000 },
      { name: 'features', kind: 'number', integer: true, min: 1, default: 10 },
      { name: 'informative', kind: 'number', integer: true, min: 1, doc: 'features carrying the signal (default: about half)' },
      { name: 'classes', kind: 'number', integer: true, min: 2, default: 2, doc: 'classification only' },
      { name: 'noise', kind: 'number', min: 0, default: 0, doc: 'classification: fraction of labels flipped (0..1); regression: std of the added noise' },
      { name: 'separable', kind: 'boolean', default: false, doc: 'classification: labels from a linear rule with a margin' },
      { name: 'class_sep', kind: 'number', exclusiveMin: 0, default: 1, doc: 'classification: distance of the class centres' },
      { name: 'seed', kind: 'number', integer: true, min: 0, max: 2 ** 32 - 1, default: 0 },
    ],
  },
  build(ctx) {
    const task = ctx.params.task === 'regression' ? 'regression' : 'classification';
    const rows = num(ctx, 'rows');
    const features = num(ctx, 'features');
    const seed = num(ctx, 'seed');
    const noise = num(ctx, 'noise');
    const inf = ctx.params.informative;
    if (typeof inf === 'number' && inf > features) ctx.fail('params.informative', `must be at most features (${features}), got ${inf}`);
    let source: SyntheticSource;
    if (task === 'classification') {
      if (noise > 1) ctx.fail('params.noise', `is the fraction of flipped labels for classification: must be at most 1, got ${noise}`);
      const classes = num(ctx, 'classes');
      if (rows < classes) ctx.fail('params.rows', `must be at least classes (${classes}), got ${rows}`);
      source = { kind: 'classification', nSamples: rows, nFeatures: features, nClasses: classes, flipY: noise, classSep: num(ctx, 'class_sep'), linearlySeparable: ctx.params.separable === true, seed };
      if (ctx.params.separable === true && classes !== 2 && noise > 0) ctx.fail('params.noise', 'must be 0 for a separable set');
    } else {
      source = { kind: 'regression', nSamples: rows, nFeatures: features, noise, seed };
    }
    if (typeof inf === 'number') source.nInformative = inf;
    const meta: DatasetMeta = { source, task, nFeatures: features, nRows: rows };
    return { out: datasetValue(emitDatasetInfo(ctx, meta), meta) };
  },
};

const split: OpDef = {
  spec: {
    op: 'split',
    label: 'Train / validation split',
    category: 'model tuning',
    doc: 'Holds out a seeded fraction of the rows for validation (optionally stratified by class); searches score trials on it.',
    inputs: [{ name: 'data', type: 'dataset' }],
    outputs: [{ name: 'out', type: 'dataset' }],
    params: [
      { name: 'validation', kind: 'number', exclusiveMin: 0, max: 0.95, default: 0.2, doc: 'fraction of rows held out' },
      { name: 'seed', kind: 'number', integer: true, min: 0, max: 2 ** 32 - 1, default: 0 },
      { name: 'stratify', kind: 'boolean', default: false, doc: 'keep class proportions (classification only)' },
    ],
  },
  build(ctx) {
    const data = datasetInput(ctx, 'data');
    const stratify = ctx.params.stratify === true;
    if (stratify && data.task !== 'classification') ctx.fail('params.stratify', 'needs a classification dataset');
    const validationFraction = num(ctx, 'validation');
    const nVal = Math.ceil(validationFraction * data.nRows);
    // A table's row count is known only when it runs; the worker's split refuses an empty part.
    if (!data.rowsEstimated && (nVal < 1 || nVal >= data.nRows)) ctx.fail('params.validation', `leaves no training or no validation rows of ${data.nRows}`);
    const meta: DatasetMeta = { ...data, split: { validationFraction, seed: num(ctx, 'seed'), ...(stratify ? { stratify } : {}) } };
    return { out: datasetValue(emitDatasetInfo(ctx, meta, dataDeps(meta)), meta) };
  },
};

const NUMERIC = new Set(['int', 'float', 'bool']);

/**
 * A dataset from a dataframe's columns. The columns are checked against the frame's schema here;
 * the partitions are gathered into one table by a df 'concat' task (a one-partition frame is used
 * as it is), whose key every task reading the rows (trials, predict, dataset-info) depends on, so
 * each worker receives the table through the ordinary peer transfer and builds the dataset itself
 * (worker/kernels/tfjs/datasets.ts datasetFromArrow).
 */
const datasetFromTable: OpDef = {
  spec: {
    op: 'dataset_from_table',
    label: 'Dataset from dataframe',
    category: 'model tuning',
    doc: "Feature and target columns of a dataframe as a tuning dataset (numeric features; a classification target's values are its classes).",
    inputs: [{ name: 'df', type: 'dataframe' }],
    outputs: [{ name: 'out', type: 'dataset' }],
    params: [
      { name: 'features', kind: 'strings', required: true, doc: 'numeric feature columns (int, float or bool)' },
      { name: 'target', kind: 'string', required: true, doc: 'the column to predict' },
      { name: 'task', kind: 'enum', options: ['classification', 'regression'], default: 'classification' },
    ],
  },
  build(ctx) {
    const frame = frameInput(ctx, 'df');
    const task = ctx.params.task === 'regression' ? 'regression' : 'classification';
    const features = strList(ctx, 'features', true) as string[];
    const target = str(ctx, 'target');
    const cols = requireColumns(ctx, 'params.features', features, frame.columns);
    cols.forEach((c) => {
      if (!NUMERIC.has(c.type)) ctx.fail('params.features', `column '${c.name}' is ${c.type}; features must be numeric (int, float or bool). Numeric columns: ${listColumns(frame.columns.filter((x) => NUMERIC.has(x.type))) || 'none'}`);
    });
    const [t] = requireColumns(ctx, 'params.target', [target], frame.columns);
    if (features.includes(target)) ctx.fail('params.target', `column '${target}' is also listed in features`);
    if (task === 'regression' && !NUMERIC.has(t.type)) ctx.fail('params.target', `column '${target}' is ${t.type}; a regression target must be numeric (int, float or bool)`);
    if (task === 'classification' && (t.type === 'float' || t.type === 'timestamp')) ctx.fail('params.target', `column '${target}' is ${t.type}; a classification target holds class labels (int, bool or string)`);
    let ref: string;
    if (frame.keys.length === 1) ref = frame.keys[0];
    else {
      ref = ctx.key('gather');
      const bytes = frame.partitionBytes * frame.partitions;
      ctx.emit({ key: ref, deps: frame.keys, spec: dfOpSpec('concat', {}), resource: 'any', op: 'gather table', outBytes: bytes, workBytes: bytes * 2 });
    }
    const nRows = Math.max(2, Math.round((frame.partitionBytes * frame.partitions) / rowBytes(frame.columns)));
    const meta: DatasetMeta = { source: { kind: 'table', ref, features, target, task }, task, nFeatures: features.length, nRows, rowsEstimated: true, targetType: t.type };
    return { out: datasetValue(emitDatasetInfo(ctx, meta, [ref]), meta) };
  },
};

export const TUNING_DATA_OPS: OpDef[] = [datasetSynthetic, split, datasetFromTable];
