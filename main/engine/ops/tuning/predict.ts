/**
 * The predict node: applies a search's best model to rows.
 *
 * - `data` (a dataset): the validation rows when the dataset was split, else all of them; the
 *   result is a JSON table (row, prediction, target and class probabilities) with the metrics.
 * - `df` (a dataframe): every row of every partition; one task per partition reads the model's
 *   feature columns and outputs the partition with a prediction column added, so the result is a
 *   dataframe (a table output, or the input of further dataframe nodes).
 */
import { PREDICTION_TYPES, trialOpSpec } from '../../../../common/tuning/op-params';
import type { OpDef } from '../types';
import { frameInput, frameValue, listColumns, requireColumns, rowBytes, type ColType, type DfColumn } from '../df/meta';
import { dataDeps, datasetInput, DEFAULT_SPLIT } from './values';

const NUMERIC = new Set(['int', 'float', 'bool']);

const predict: OpDef = {
  spec: {
    op: 'predict',
    label: 'Predict',
    category: 'model tuning',
    doc: "Applies the search's best model to a dataset's validation rows (all rows when it was not split): predictions and their metrics; or to every row of a dataframe: the dataframe with a prediction column.",
    inputs: [
      { name: 'model', type: 'model', doc: "a search node's best model" },
      { name: 'data', type: 'dataset', optional: true, doc: 'rows to predict (connect this or df)' },
      { name: 'df', type: 'dataframe', optional: true, doc: "a dataframe holding the model's feature columns (connect this or data)" },
    ],
    outputs: [{ name: 'out', type: 'dataframe' }],
    params: [
      { name: 'max_rows', kind: 'number', integer: true, min: 0, default: 1000, doc: 'dataset input: predictions listed in the result (metrics cover every row)' },
      { name: 'column', kind: 'string', default: 'prediction', doc: 'dataframe input: the name of the prediction column' },
    ],
  },
  build(ctx) {
    const m = ctx.inputs.model;
    if (!m || m.kind !== 'opaque' || m.portType !== 'model' || typeof m.meta.bestModelKey !== 'string') {
      return ctx.fail('inputs.model', "expects a search node's best model (a model node alone is untrained)");
    }
    if (ctx.inputs.df && ctx.inputs.data) ctx.fail('inputs.df', 'connect either data or df, not both');
    if (ctx.inputs.df) {
      const frame = frameInput(ctx, 'df');
      const features = Array.isArray(m.meta.features) ? (m.meta.features as string[]) : [];
      if (features.length !== m.meta.nFeatures) ctx.fail('inputs.model', 'does not name its feature columns');
      const cols = requireColumns(ctx, 'inputs.df', features, frame.columns);
      for (const c of cols) if (!NUMERIC.has(c.type)) ctx.fail('inputs.df', `feature column '${c.name}' is ${c.type}; the model takes numbers (columns: ${listColumns(frame.columns)})`);
      const column = typeof ctx.params.column === 'string' && ctx.params.column !== '' ? ctx.params.column : 'prediction';
      if (frame.columns.some((c) => c.name === column)) ctx.fail('params.column', `'${column}' is already a column of the dataframe; choose another name`);
      // A class label keeps its target's type (int, bool, string); regression predicts floats.
      const target = m.meta.targetType === undefined ? 'int' : PREDICTION_TYPES.find((t) => t === m.meta.targetType);
      if (target === undefined) return ctx.fail('inputs.model', `its target column is ${String(m.meta.targetType)}; a prediction column is int, float, bool or string`);
      const type = m.meta.task === 'regression' ? 'float' : target === 'float' ? 'int' : target;
      const columns: DfColumn[] = [...frame.columns, { name: column, type }];
      const rows = Math.max(1, Math.round(frame.partitionBytes / rowBytes(frame.columns)));
      const keys = frame.keys.map((k, i) => {
        const key = ctx.key('predict', [i]);
        ctx.emit({ key, deps: [m.meta.bestModelKey as string, k], spec: trialOpSpec('predict-table', { features, column, type }), resource: 'any', op: 'predict', outBytes: rows * rowBytes(columns), workBytes: rows * (features.length + 4) * 8 + frame.partitionBytes * 2 });
        return key;
      });
      return { out: frameValue(keys, columns, rows * rowBytes(columns)) };
    }
    if (!ctx.inputs.data) return ctx.fail('inputs.data', 'not connected: connect a dataset (data) or a dataframe (df)');
    const data = datasetInput(ctx, 'data');
    if (m.meta.task !== data.task) ctx.fail('inputs.data', `is ${data.task} but the model was tuned for ${String(m.meta.task)}`);
    if (m.meta.nFeatures !== data.nFeatures) ctx.fail('inputs.data', `has ${data.nFeatures} features but the model takes ${String(m.meta.nFeatures)}`);
    const key = ctx.key('predict');
    const params = { data: { source: data.source, split: data.split ?? DEFAULT_SPLIT }, part: data.split ? ('validation' as const) : ('all' as const), maxRows: (ctx.params.max_rows ?? 1000) as number };
    ctx.emit({ key, deps: [m.meta.bestModelKey, ...dataDeps(data)], spec: trialOpSpec('predict', params), resource: 'any', op: 'predict', outBytes: 64 * 1024, workBytes: data.nRows * (data.nFeatures + 4) * 8 });
    return { out: { kind: 'opaque', portType: 'dataframe', keys: [key], meta: { rows: data.nRows } } };
  },
};

export const TUNING_PREDICT_OPS: OpDef[] = [predict];
