/**
 * What the compiler knows about a dataframe without computing it: its columns (names and
 * expression types) and partition task keys, carried in LazyOpaque.meta. Downstream nodes check
 * column names and expressions against it at compile time, so a typo fails before any task runs,
 * naming the node, the field and the columns available.
 */
import { dfOpSpec, type DfOp, type DfOpParams } from '../../../../common/df/op-params';
import type { ValueType } from '../../../../common/expr/ast';
import type { ExprSchema } from '../../../../common/expr/check';
import type { TaskDef, TaskPlace } from '../../../../common/tasks';
import type { BuildContext, LazyOpaque } from '../types';

export type ColType = Exclude<ValueType, 'null'>;
export interface DfColumn {
  name: string;
  type: ColType;
}

export interface DfMeta {
  columns: DfColumn[];
  partitions: number;
  /** Rough bytes of one partition, for the compiler's task-size limit (not a promise). */
  partitionBytes: number;
  /**
   * The partitions are generated from a seed (timeseries) and fused into the step that reads them
   * (compile/df-fuse.ts): nothing to fetch, so that step may be placed on any GPU.
   */
  generated?: boolean;
}

export interface LazyFrame extends DfMeta {
  keys: string[];
}

export function frameValue(keys: string[], columns: DfColumn[], partitionBytes: number, generated = false): LazyOpaque {
  const meta: DfMeta = { columns, partitions: keys.length, partitionBytes: Math.max(64, Math.round(partitionBytes)), ...(generated ? { generated } : {}) };
  return { kind: 'opaque', portType: 'dataframe', keys, meta: meta as unknown as Record<string, unknown> };
}

/** The dataframe on input `port`, or a failure naming the port. */
export function frameInput(ctx: BuildContext, port: string): LazyFrame {
  const v = ctx.inputs[port];
  if (!v) return ctx.fail(`inputs.${port}`, 'not connected');
  if (v.kind !== 'opaque' || v.portType !== 'dataframe') return ctx.fail(`inputs.${port}`, `expects a dataframe, got ${v.kind === 'opaque' ? v.portType : v.kind}`);
  const m = v.meta as unknown as DfMeta;
  return { keys: v.keys, columns: m.columns, partitions: m.partitions, partitionBytes: m.partitionBytes, generated: m.generated };
}

export function exprSchema(cols: DfColumn[]): ExprSchema {
  const s: ExprSchema = {};
  for (const c of cols) s[c.name] = c.type;
  return s;
}

export function listColumns(cols: DfColumn[]): string {
  return cols.map((c) => c.name).join(', ');
}

/** Checks that every name in `names` is a column; fails on `field` listing the available ones. */
export function requireColumns(ctx: BuildContext, field: string, names: string[], cols: DfColumn[]): DfColumn[] {
  return names.map((n) => {
    const c = cols.find((x) => x.name === n);
    if (!c) return ctx.fail(field, `unknown column '${n}'; available columns: ${listColumns(cols)}`);
    return c;
  });
}

/** A list-of-strings param (empty or missing -> undefined unless required). */
export function strList(ctx: BuildContext, name: string, required: boolean): string[] | undefined {
  const v = ctx.params[name];
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) {
    if (required) return ctx.fail(`params.${name}`, 'must name at least one column');
    return undefined;
  }
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x !== '')) return ctx.fail(`params.${name}`, 'must be a list of column names');
  if (new Set(v).size !== v.length) return ctx.fail(`params.${name}`, 'names a column twice');
  return v as string[];
}

export function str(ctx: BuildContext, name: string): string {
  const v = ctx.params[name];
  if (typeof v !== 'string' || v === '') return ctx.fail(`params.${name}`, 'must be a non-empty string');
  return v;
}

/** Emits one df task (its params typed by common/df/op-params.ts); resource 'any' (both CPU and GPU workers run the js kernels). */
export function emitDf<Op extends DfOp>(ctx: BuildContext, key: string, deps: string[], op: Op, params: DfOpParams<Op>, outBytes: number, workBytes = outBytes, place?: TaskPlace): void {
  const t: Omit<TaskDef, 'node'> = { key, deps, spec: dfOpSpec(op, params), resource: 'any', op, outBytes: Math.max(64, Math.round(outBytes)), workBytes: Math.max(64, Math.round(workBytes)), ...(place ? { place } : {}) };
  ctx.emit(t);
}

/** Bytes per row of a partition with these columns (8 per value, as the kernels hold them). */
export function rowBytes(cols: DfColumn[]): number {
  return Math.max(1, cols.length) * 8 + 1;
}
