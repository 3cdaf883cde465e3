/**
 * The 'predict' task: the best model (a search-best-model output, packed) applied to a dataset's
 * rows, built in this worker from their spec like a trial's. Metrics use the trainer's own
 * validation scoring (train.ts evaluate), so they equal the leaderboard's when the rows are the
 * search's validation rows.
 */
import type { Table, Vector } from 'apache-arrow';
import { boolVector, floatVector, intVector, utf8Vector } from '../df/build';
import { tableOf } from '../df/gather';
import { fromIPC, toIPC } from '../df/ipc';
import type { JsonValue } from '../../../common/arrays';
import type { HandlerContext, HandlerResult } from '../../handlers';
import { unpackModel, type PackedModel } from './pack';
import { predict } from './predict';
import { SearchTaskError } from './search-record';
import { backendLabel, datasetOf, splitTableInput, workerBackend } from './search-tasks';
import { trainValidationSplit } from './split';
import { evaluate } from './train';
import { disposeModel } from './trained-model';
import type { TrialOpParams } from '../../../common/tuning/op-params';

export async function predictTask(p: TrialOpParams<'predict'>, inputs: { kind: string; value?: unknown }[], ctx: HandlerContext): Promise<HandlerResult> {
  const { table, rest } = splitTableInput(inputs);
  inputs = rest;
  const best = inputs[0]?.value as { trialId?: string; model?: PackedModel } | undefined;
  if (inputs[0]?.kind !== 'json' || !best?.model) throw new SearchTaskError('predict: input 0 is not a search best-model output');
  const sel = await workerBackend(ctx);
  const all = await datasetOf(p.data, table, 'predict');
  const rows = p.part === 'validation' ? trainValidationSplit(all, p.data.split).validation : all;
  const m = await unpackModel(best.model, `trial ${best.trialId}`);
  try {
    const pred = predict(m, rows.x, rows.nRows);
    const n = Math.min(rows.nRows, p.maxRows);
    const table: Record<string, JsonValue>[] = [];
    for (let i = 0; i < n; i++) {
      if (pred.task === 'regression') table.push({ row: i, prediction: pred.values[i], target: rows.y[i] });
      else {
        const probs = Array.from(pred.probabilities.subarray(i * pred.nClasses, (i + 1) * pred.nClasses));
        table.push({ row: i, prediction: pred.labels[i], target: rows.classes[rows.y[i]], probabilities: probs });
      }
    }
    const value = { trialId: best.trialId ?? null, task: rows.task, part: p.part, rows: rows.nRows, metrics: evaluate(m, rows), predictions: table };
    return { value: { kind: 'json', value: value as unknown as JsonValue }, backend: backendLabel(sel) };
  } finally {
    disposeModel(m.model);
  }
}

/**
 * The 'predict-table' task: the best model applied to one dataframe partition (inputs: the
 * search-best-model output, then the partition). Output: the partition with the prediction column
 * added (the class label, or the regression value), as a dataframe partition.
 */
export async function predictTableTask(p: TrialOpParams<'predict-table'>, inputs: { kind: string; value?: unknown }[], ctx: HandlerContext): Promise<HandlerResult> {
  const { table: ipc, rest } = splitTableInput(inputs);
  const best = rest[0]?.value as { trialId?: string; model?: PackedModel } | undefined;
  if (rest[0]?.kind !== 'json' || !best?.model) throw new SearchTaskError('predict-table: input 0 is not a search best-model output');
  if (!ipc) throw new SearchTaskError('predict-table: input 1 is not a dataframe partition');
  const table = fromIPC(ipc);
  const n = table.numRows;
  const x = featureMatrix(table, p.features);
  const sel = await workerBackend(ctx);
  const m = await unpackModel(best.model, `trial ${best.trialId}`);
  let vector: Vector;
  try {
    const pred = n === 0 ? null : predict(m, x, n);
    if (!pred) vector = p.type === 'string' ? utf8Vector([]) : p.type === 'bool' ? boolVector(new Uint8Array(0)) : p.type === 'int' ? intVector(new Float64Array(0)) : floatVector(new Float64Array(0));
    else if (pred.task === 'regression') vector = floatVector(Float64Array.from(pred.values));
    else if (p.type === 'string') vector = utf8Vector(pred.labels.map(String));
    else if (p.type === 'bool') vector = boolVector(Uint8Array.from(pred.labels, (l) => (Number(l) ? 1 : 0)));
    else vector = p.type === 'int' ? intVector(Float64Array.from(pred.labels, Number)) : floatVector(Float64Array.from(pred.labels, Number));
  } finally {
    disposeModel(m.model);
  }
  const cols = table.schema.fields.map((f) => ({ name: f.name, vector: table.getChild(f.name) as Vector }));
  const out = tableOf([...cols, { name: p.column, vector }], n);
  return { value: { kind: 'table', ipc: toIPC(out), rows: n }, backend: backendLabel(sel) };
}

/** Row-major float32 features from numeric columns (int64 as numbers, bool as 0/1). */
function featureMatrix(table: Table, features: string[]): Float32Array {
  const n = table.numRows;
  const d = features.length;
  const x = new Float32Array(n * d);
  features.forEach((name, j) => {
    const v = table.getChild(name);
    if (!v) throw new SearchTaskError(`predict-table: feature column '${name}' is not in the partition (columns: ${table.schema.fields.map((f) => f.name).join(', ')})`);
    for (let i = 0; i < n; i++) {
      const val: unknown = v.get(i);
      if (val === null || val === undefined) throw new SearchTaskError(`predict-table: feature column '${name}' row ${i} is missing; drop or fill missing values first`);
      x[i * d + j] = Number(val);
    }
  });
  return x;
}
