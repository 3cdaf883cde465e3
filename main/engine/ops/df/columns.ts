/**
 * Per-partition dataframe nodes: select, drop, rename, filter, assign. Each maps every partition
 * through one task; names and expressions are checked here against the input's schema, so a
 * wrong column fails at compile time naming the node, the field and the available columns.
 */
import { compileExpr, compileFilter } from '../../../../common/expr/check';
import { ExprError } from '../../../../common/expr/errors';
import type { DfOp, DfOpParams } from '../../../../common/df/op-params';
import type { BuildContext, OpDef } from '../types';
import { emitDf, exprSchema, frameInput, frameValue, requireColumns, rowBytes, str, strList, type ColType, type DfColumn, type LazyFrame } from './meta';

const IN = [{ name: 'df', type: 'dataframe' as const }];
const OUT = [{ name: 'out', type: 'dataframe' as const }];

/** One task per partition running `op` with `params`; returns the new frame. */
export function mapPartitions<Op extends DfOp>(ctx: BuildContext, f: LazyFrame, op: Op, params: DfOpParams<Op>, columns: DfColumn[], name: string = op): ReturnType<typeof frameValue> {
  const bytes = f.partitionBytes * (rowBytes(columns) / rowBytes(f.columns));
  const keys = f.keys.map((k, i) => {
    const key = ctx.key(name, [i]);
    emitDf(ctx, key, [k], op, params, bytes, f.partitionBytes + bytes);
    return key;
  });
  return frameValue(keys, columns, bytes);
}

/** The schema with column `name` of `type` in place of the one named so, or added last (assign's rule). */
function withColumn(cols: DfColumn[], name: string, type: ColType): DfColumn[] {
  return cols.some((c) => c.name === name) ? cols.map((c) => (c.name === name ? { name, type } : c)) : [...cols, { name, type }];
}

/** Checks an expression against the frame's columns; an ExprError fails on `field`. */
function checked<T>(ctx: BuildContext, field: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ExprError) return ctx.fail(field, e.message);
    throw e;
  }
}

const select: OpDef = {
  spec: { op: 'select', label: 'Select columns', category: 'dataframes', doc: 'Keeps the named columns, in the order given.', inputs: IN, outputs: OUT, params: [{ name: 'columns', kind: 'strings', required: true, minLength: 1 }] },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const names = strList(ctx, 'columns', true)!;
    return { out: mapPartitions(ctx, f, 'select', { columns: names }, requireColumns(ctx, 'params.columns', names, f.columns)) };
  },
};

const drop: OpDef = {
  spec: { op: 'drop', label: 'Drop columns', category: 'dataframes', doc: 'Removes the named columns.', inputs: IN, outputs: OUT, params: [{ name: 'columns', kind: 'strings', required: true, minLength: 1 }] },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const names = strList(ctx, 'columns', true)!;
    requireColumns(ctx, 'params.columns', names, f.columns);
    const rest = f.columns.filter((c) => !names.includes(c.name));
    if (rest.length === 0) ctx.fail('params.columns', 'would drop every column');
    return { out: mapPartitions(ctx, f, 'drop', { columns: names }, rest) };
  },
};

const rename: OpDef = {
  spec: { op: 'rename', label: 'Rename columns', category: 'dataframes', doc: 'Renames columns: {"old": "new", ...}.', inputs: IN, outputs: OUT, params: [{ name: 'mapping', kind: 'json', required: true, doc: '{"old name": "new name"}' }] },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const m = ctx.params.mapping;
    if (typeof m !== 'object' || m === null || Array.isArray(m) || Object.keys(m).length === 0) return ctx.fail('params.mapping', 'must be an object {"old name": "new name"} with at least one entry');
    const mapping: Record<string, string> = {};
    for (const [from, to] of Object.entries(m)) {
      if (typeof to !== 'string' || to === '') ctx.fail(`params.mapping.${from}`, 'must be a non-empty column name');
      requireColumns(ctx, 'params.mapping', [from], f.columns);
      mapping[from] = to as string;
    }
    const columns = f.columns.map((c) => ({ name: mapping[c.name] ?? c.name, type: c.type }));
    const seen = new Set<string>();
    for (const c of columns) {
      if (seen.has(c.name)) ctx.fail('params.mapping', `two columns would be named '${c.name}'`);
      seen.add(c.name);
    }
    return { out: mapPartitions(ctx, f, 'rename', { mapping }, columns) };
  },
};

const filter: OpDef = {
  spec: {
    op: 'filter',
    label: 'Filter rows',
    category: 'dataframes',
    doc: "Keeps the rows where a condition is true, e.g. x > 0.5 and name in ['Alice', 'Bob']; nulls count as not true (SQL).",
    inputs: IN,
    outputs: OUT,
    params: [{ name: 'expr', kind: 'string', required: true, doc: 'condition over the columns (docs/dataframes.md)' }],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const expr = str(ctx, 'expr');
    checked(ctx, 'params.expr', () => compileFilter(expr, exprSchema(f.columns)));
    return { out: mapPartitions(ctx, f, 'filter', { expr }, f.columns) };
  },
};

const assign: OpDef = {
  spec: {
    op: 'assign',
    label: 'Assign column',
    category: 'dataframes',
    doc: 'Adds (or replaces) a column computed from an expression, e.g. z = round(x * 100, 1).',
    inputs: IN,
    outputs: OUT,
    params: [
      { name: 'column', kind: 'string', required: true },
      { name: 'expr', kind: 'string', required: true, doc: 'expression over the columns (docs/dataframes.md)' },
    ],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const column = str(ctx, 'column');
    const expr = str(ctx, 'expr');
    const e = checked(ctx, 'params.expr', () => compileExpr(expr, exprSchema(f.columns)));
    // A bare null literal has no type of its own; the kernels write it as a float column.
    const type: ColType = e.type === 'null' ? 'float' : e.type;
    return { out: mapPartitions(ctx, f, 'assign', { exprs: { [column]: expr } }, withColumn(f.columns, column, type)) };
  },
};

/** The type of a map's values: all numbers (int if whole), all strings or all booleans; nulls allowed. */
type MapValue = number | string | boolean | null;

function mappingType(ctx: BuildContext, mapping: Record<string, MapValue>): 'int' | 'float' | 'string' | 'bool' {
  const vals = Object.values(mapping).filter((v) => v !== null);
  const kinds = new Set(vals.map((v) => typeof v));
  if (kinds.size > 1) return ctx.fail('params.mapping', `mixes ${[...kinds].join(' and ')} values; give all numbers, all strings or all booleans`);
  const [kind] = kinds;
  if (kind === undefined || kind === 'number') {
    if (!vals.every((v) => typeof v !== 'number' || Number.isFinite(v))) ctx.fail('params.mapping', 'has a value that is not a finite number');
    return vals.every((v) => Number.isInteger(v)) && vals.length > 0 ? 'int' : 'float';
  }
  if (kind === 'string') return 'string';
  if (kind === 'boolean') return 'bool';
  return ctx.fail('params.mapping', `values must be numbers, strings, booleans or null, found a${kind === 'object' ? 'n object or list' : ` ${kind}`}`);
}

const mapValues: OpDef = {
  spec: {
    op: 'map',
    label: 'Map values',
    category: 'dataframes',
    doc: "pandas' s.map(dict): each value of a column looked up in a mapping {\"key\": value, ...}; a value it lacks gives null. Number columns match keys by their decimal text (\"1\", \"2.5\").",
    inputs: IN,
    outputs: OUT,
    params: [
      { name: 'column', kind: 'string', required: true },
      { name: 'mapping', kind: 'json', required: true, doc: '{"eng": 1, "ops": 2}' },
      { name: 'as', kind: 'string', doc: 'new column name (default: replace the column)' },
    ],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const name = str(ctx, 'column');
    const [c] = requireColumns(ctx, 'params.column', [name], f.columns);
    if (c.type !== 'string' && c.type !== 'int' && c.type !== 'float') ctx.fail('params.column', `column '${name}' is ${c.type}; map takes a string or number column`);
    const m = ctx.params.mapping;
    if (typeof m !== 'object' || m === null || Array.isArray(m)) return ctx.fail('params.mapping', 'must be an object {"key": value, ...}');
    const mapping: Record<string, MapValue> = {};
    for (const [k, v] of Object.entries(m)) {
      if (v !== null && typeof v !== 'number' && typeof v !== 'string' && typeof v !== 'boolean') return ctx.fail('params.mapping', `values must be numbers, strings, booleans or null; '${k}' is not`);
      mapping[k] = v;
    }
    const type = mappingType(ctx, mapping);
    const as = typeof ctx.params.as === 'string' && ctx.params.as !== '' ? ctx.params.as : undefined;
    return { out: mapPartitions(ctx, f, 'map-values', { column: name, mapping, type, ...(as ? { as } : {}) }, withColumn(f.columns, as ?? name, type)) };
  },
};

export const DF_COLUMN_OPS: OpDef[] = [select, drop, rename, filter, assign, mapValues];
