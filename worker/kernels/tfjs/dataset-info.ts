/**
 * The 'dataset-info' task: builds a dataset or split node's rows (pure JS, no tfjs) and reports
 * what they look like: task, rows, features, classes and class counts per part.
 */
import type { JsonValue } from '../../../common/arrays';
import type { HandlerResult } from '../../handlers';
import { makeClassification, makeRegression } from './datasets';
import { SearchTaskError } from './search-record';
import { trainValidationSplit } from './split';
import type { DataSpec } from './trial-task';

/** The 'dataset-info' summary: what a dataset or split node's data looks like. */
export function datasetInfo(raw: Record<string, unknown>): HandlerResult {
  const meta = (raw.data ?? {}) as { source: DataSpec['source']; split?: DataSpec['split']; task: string };
  const s = meta.source;
  if (!s || s.kind === 'table') throw new SearchTaskError('dataset-info params.data.source: a synthetic source is required');
  const ds = s.kind === 'classification' ? makeClassification(s) : makeRegression(s);
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
