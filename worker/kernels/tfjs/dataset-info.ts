/**
 * The 'dataset-info' task: builds a dataset or split node's rows (pure JS, no tfjs) and reports
 * what they look like: task, rows, features, classes and class counts per part.
 */
import type { JsonValue } from '../../../common/arrays';
import type { HandlerResult } from '../../handlers';
import { fromIPC } from '../df/ipc';
import { datasetFromArrow, makeClassificationAsync, makeRegressionAsync, type Dataset } from './datasets';
import { SearchTaskError } from './search-record';
import { trainValidationSplit } from './split';
import type { TrialOpParams } from '../../../common/tuning/op-params';

/** The 'dataset-info' summary: what a dataset or split node's data looks like. */
export async function datasetInfo(p: TrialOpParams<'dataset-info'>, inputs: { kind: string; value?: unknown }[] = []): Promise<HandlerResult> {
  const meta = p.data;
  const s = meta.source;
  let ds: Dataset;
  if (s.kind === 'table') {
    // The gathered table is this task's input (pure JS: no tfjs loaded for a summary).
    const t = inputs.find((v) => v.kind === 'table') as { ipc?: Uint8Array } | undefined;
    if (!t?.ipc) throw new SearchTaskError(`dataset-info: the table source '${s.ref}' did not arrive among the task's inputs`);
    ds = datasetFromArrow(fromIPC(t.ipc), s);
  } else ds = await (s.kind === 'classification' ? makeClassificationAsync(s) : makeRegressionAsync(s));
  const classCounts = (y: Float32Array, k: number) => Array.from({ length: k }, (_, c) => y.reduce((n, v) => n + (v === c ? 1 : 0), 0));
  const part = (d: typeof ds) => ({ rows: d.nRows, ...(d.task === 'classification' ? { classCounts: classCounts(d.y, d.classes.length) } : {}) });
  const value: Record<string, unknown> = { task: ds.task, rows: ds.nRows, features: ds.nFeatures, featureNames: ds.featureNames, classes: ds.classes, all: part(ds) };
  if (meta.split) {
    const sp = trainValidationSplit(ds, meta.split);
    value.train = part(sp.train);
    value.validation = part(sp.validation);
  }
  return { value: { kind: 'json', value: value as JsonValue }, backend: 'js' };
}
