/**
 * The predict node: applies a search's best model to a dataset's rows (the validation rows when
 * the dataset was split, else all of them) and reports the predictions with their metrics against
 * the known targets. The result is a JSON table (row, prediction, and class probabilities for
 * classification); dataframe results are not wired into the engine yet, so nothing downstream
 * consumes it as a dataframe.
 */
import type { OpDef } from '../types';
import { datasetInput, DEFAULT_SPLIT } from './values';

const predict: OpDef = {
  spec: {
    op: 'predict',
    label: 'Predict',
    category: 'model tuning',
    doc: "Applies the search's best model to a dataset's validation rows (all rows when it was not split): predictions and their metrics.",
    inputs: [
      { name: 'model', type: 'model', doc: "a search node's best model" },
      { name: 'data', type: 'dataset' },
    ],
    outputs: [{ name: 'out', type: 'dataframe' }],
    params: [{ name: 'max_rows', kind: 'number', integer: true, min: 0, default: 1000, doc: 'predictions listed in the result (metrics cover every row)' }],
  },
  build(ctx) {
    const m = ctx.inputs.model;
    if (!m || m.kind !== 'opaque' || m.portType !== 'model' || typeof m.meta.bestModelKey !== 'string') {
      return ctx.fail('inputs.model', "expects a search node's best model (a model node alone is untrained)");
    }
    const data = datasetInput(ctx, 'data');
    if (m.meta.task !== data.task) ctx.fail('inputs.data', `is ${data.task} but the model was tuned for ${String(m.meta.task)}`);
    if (m.meta.nFeatures !== data.nFeatures) ctx.fail('inputs.data', `has ${data.nFeatures} features but the model takes ${String(m.meta.nFeatures)}`);
    const key = ctx.key('predict');
    const params = { data: { source: data.source, split: data.split ?? DEFAULT_SPLIT }, part: data.split ? 'validation' : 'all', maxRows: (ctx.params.max_rows ?? 1000) as number };
    ctx.emit({ key, deps: [m.meta.bestModelKey], spec: { kind: 'trial', op: 'predict', params }, resource: 'any', op: 'predict', outBytes: 64 * 1024, workBytes: data.nRows * (data.nFeatures + 4) * 8 });
    return { out: { kind: 'opaque', portType: 'dataframe', keys: [key], meta: { rows: data.nRows } } };
  },
};

export const TUNING_PREDICT_OPS: OpDef[] = [predict];
