/**
 * Missing-value nodes (worker/kernels/df/missing.ts): isna, fillna and dropna, one task per
 * partition each. Columns and the fill value's type are checked here against the schema.
 */
import type { OpDef } from '../types';
import { mapPartitions } from './columns';
import { frameInput, requireColumns, strList } from './meta';

const IN = [{ name: 'df', type: 'dataframe' as const }];
const OUT = [{ name: 'out', type: 'dataframe' as const }];

const isna: OpDef = {
  spec: { op: 'isna', label: 'Is missing', category: 'dataframes', doc: 'A bool column per column (or per column named), true where the value is missing (null or NaN), as pandas isna.', inputs: IN, outputs: OUT, params: [{ name: 'columns', kind: 'strings', doc: 'default: every column' }] },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const names = strList(ctx, 'columns', false);
    const cols = names ? requireColumns(ctx, 'params.columns', names, f.columns) : f.columns;
    return { out: mapPartitions(ctx, f, 'isna', names ? { columns: names } : {}, cols.map((c) => ({ name: c.name, type: 'bool' as const }))) };
  },
};

const fillna: OpDef = {
  spec: {
    op: 'fillna', label: 'Fill missing', category: 'dataframes',
    doc: 'Replaces missing values (null, NaN) with a value: a number fills int and float columns, a string string columns, a boolean bool columns (or only the columns named), as pandas fillna.',
    inputs: IN, outputs: OUT,
    params: [{ name: 'value', kind: 'json', required: true, doc: 'a number, string or boolean' }, { name: 'columns', kind: 'strings', doc: 'default: every column of the value\'s type' }],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const value = ctx.params.value;
    if (!(typeof value === 'number' && Number.isFinite(value)) && typeof value !== 'string' && typeof value !== 'boolean') return ctx.fail('params.value', 'must be a number, a string or a boolean');
    const names = strList(ctx, 'columns', false);
    if (names) {
      for (const c of requireColumns(ctx, 'params.columns', names, f.columns)) {
        const ok = typeof value === 'number' ? c.type === 'float' || (c.type === 'int' && Number.isInteger(value)) || c.type === 'timestamp' : typeof value === 'string' ? c.type === 'string' : c.type === 'bool';
        if (!ok) ctx.fail('params.columns', `column '${c.name}' is ${c.type} and cannot hold ${JSON.stringify(value)}`);
      }
    }
    return { out: mapPartitions(ctx, f, 'fillna', names ? { value, columns: names } : { value }, f.columns) };
  },
};

const dropna: OpDef = {
  spec: {
    op: 'dropna', label: 'Drop missing', category: 'dataframes',
    doc: "Leaves out rows with a missing value (how 'any'), with only missing values (how 'all'), or with fewer than thresh present values, in the columns named (default: all), as pandas dropna.",
    inputs: IN, outputs: OUT,
    params: [
      { name: 'subset', kind: 'strings' },
      { name: 'how', kind: 'enum', options: ['any', 'all'], default: 'any' },
      { name: 'thresh', kind: 'number', integer: true, min: 0, doc: 'keep rows with at least this many present values; when given, how is not used' },
    ],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const subset = strList(ctx, 'subset', false);
    if (subset) requireColumns(ctx, 'params.subset', subset, f.columns);
    const how = ctx.params.how === 'all' ? 'all' : 'any';
    const thresh = ctx.params.thresh;
    return { out: mapPartitions(ctx, f, 'dropna', { ...(subset ? { subset } : {}), how, ...(typeof thresh === 'number' ? { thresh } : {}) }, f.columns) };
  },
};

export const DF_MISSING_OPS: OpDef[] = [isna, fillna, dropna];
