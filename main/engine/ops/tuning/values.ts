/**
 * The compile-time values of model-tuning ports. A 'dataset' is a recipe, not rows: synthetic data
 * is generated inside each worker from its seed (the same rows everywhere, nothing sent), so the
 * value carries the DataSpec the worker reads (common/tuning/data-spec.ts) and what the
 * compiler needs to check a search against it (task, feature count, classes). A 'model' is the
 * model node's base settings. Each also names a small summary task, the node's result when it is
 * left unconnected.
 */
import { trialOpSpec } from '../../../../common/tuning/op-params';
import type { Task } from '../../../../common/tuning/trial';
import type { ModelKind, ModelSpec } from '../../../../common/tuning/trial';
import type { BuildContext, LazyOpaque } from '../types';

/** A DataSpec['source'] of a synthetic kind (common/tuning/data-spec.ts), with the counts the compiler checks made required. */
export type SyntheticSource =
  | { kind: 'classification'; nSamples: number; nFeatures: number; nInformative?: number; nClasses: number; flipY?: number; classSep?: number; linearlySeparable?: boolean; seed: number }
  | { kind: 'regression'; nSamples: number; nFeatures: number; nInformative?: number; noise?: number; seed: number };

/** Mirrors DataSpec['source'] kind 'table': a dataframe node's partitions gathered into one table
 * by the task `ref`, which every task reading the rows takes as a dependency (the table arrives as
 * one of the handler's inputs, through the ordinary peer transfer). */
export interface TableSource {
  kind: 'table';
  ref: string;
  features: string[];
  target: string;
  task: Task;
}

export interface SplitSpec {
  validationFraction: number;
  seed: number;
  stratify?: boolean;
}

export interface DatasetMeta {
  source: SyntheticSource | TableSource;
  /** Absent until a split node sets it; a search then splits with DEFAULT_SPLIT. */
  split?: SplitSpec;
  task: Task;
  nFeatures: number;
  /** Exact for synthetic data; for a table an estimate from the dataframe's partition sizes. */
  nRows: number;
  /** True when nRows is an estimate (a table source: rows are known only when it runs). */
  rowsEstimated?: boolean;
  /** Table sources: the target column's type (a predict node's label column takes it). */
  targetType?: string;
}

export interface ModelMeta {
  base: Partial<ModelSpec> & { kind: ModelKind };
  /** Epochs per trial for grid and random search. */
  epochs: number;
}

export const DEFAULT_SPLIT: SplitSpec = { validationFraction: 0.2, seed: 0 };

export function datasetValue(key: string, meta: DatasetMeta): LazyOpaque {
  return { kind: 'opaque', portType: 'dataset', keys: [key], meta: { ...meta } };
}

export function datasetInput(ctx: BuildContext, port: string): DatasetMeta {
  const v = ctx.inputs[port];
  if (!v) return ctx.fail(`inputs.${port}`, 'not connected');
  if (v.kind !== 'opaque' || v.portType !== 'dataset' || !('source' in v.meta)) {
    return ctx.fail(`inputs.${port}`, `expects a dataset from a dataset or split node, got ${v.kind === 'opaque' ? v.portType : v.kind}`);
  }
  return v.meta as unknown as DatasetMeta;
}

export function modelInput(ctx: BuildContext, port: string): ModelMeta {
  const v = ctx.inputs[port];
  if (!v) return ctx.fail(`inputs.${port}`, 'not connected');
  if (v.kind !== 'opaque' || v.portType !== 'model' || !('base' in v.meta)) {
    return ctx.fail(`inputs.${port}`, `expects a model from a model node, got ${v.kind === 'opaque' ? v.portType : v.kind}`);
  }
  return v.meta as unknown as ModelMeta;
}

/** The task keys a task reading this dataset's rows depends on (the gathered table, if any). */
export function dataDeps(data: DatasetMeta): string[] {
  return data.source.kind === 'table' ? [data.source.ref] : [];
}

/** A model node's summary task: its settings, the node's result when nothing consumes the model. */
export function emitModelDescribe(ctx: BuildContext, meta: ModelMeta): string {
  const key = ctx.key('describe');
  ctx.emit({ key, deps: [], spec: trialOpSpec('describe', { model: meta }), resource: 'any', op: 'describe', outBytes: 1024, workBytes: 1024 });
  return key;
}

/** A dataset or split node's summary task (rows, features, classes), reading the rows from `deps`. */
export function emitDatasetInfo(ctx: BuildContext, meta: DatasetMeta, deps: string[] = []): string {
  const key = ctx.key('dataset-info');
  ctx.emit({ key, deps, spec: trialOpSpec('dataset-info', { data: meta }), resource: 'any', op: 'dataset-info', outBytes: 1024, workBytes: 1024 });
  return key;
}
