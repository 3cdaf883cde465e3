/**
 * Missing values of one partition, as pandas has them: isna (a bool column per column), fillna
 * (nulls replaced by a value in the columns of that value's type) and dropna (rows with a missing
 * value, or with only missing values, left out). A float NaN counts as missing, as in pandas.
 * All three are per partition, so a frame runs them blockwise.
 */
import type { Table, Vector } from 'apache-arrow';
import { boolView, column, numView, strView, valueTypeOf } from './columns';
import { boolVector, floatVector, intVector, stringVector, timestampVector } from './build';
import { filterTable, tableOf } from './gather';

export type FillValue = number | string | boolean;

/** 1 where row i of the column is missing (null, or NaN in a float column). */
export function missingMask(v: Vector, name: string): Uint8Array {
  const t = valueTypeOf(v.type);
  const out = new Uint8Array(v.length);
  if (t === 'float' || t === 'int' || t === 'timestamp') {
    const { values, valid } = numView(v, name);
    for (let i = 0; i < out.length; i++) out[i] = (valid && !valid[i]) || values[i] !== values[i] ? 1 : 0;
    return out;
  }
  const valid = t === 'string' ? strView(v, name).valid : t === 'bool' ? boolView(v, name).valid : null;
  if (t === null) for (let i = 0; i < out.length; i++) out[i] = v.isValid(i) ? 0 : 1;
  else if (valid) for (let i = 0; i < out.length; i++) out[i] = valid[i] ? 0 : 1;
  return out;
}

function names(table: Table, subset: string[] | undefined, where: string): string[] {
  if (!subset || subset.length === 0) return table.schema.fields.map((f) => f.name);
  for (const n of subset) column(table, n, where);
  return subset;
}

/** A bool column per column (or per column of `subset`), true where the value is missing. */
export function isna(table: Table, subset?: string[]): Table {
  return tableOf(names(table, subset, 'isna').map((n) => ({ name: n, vector: boolVector(missingMask(column(table, n, 'isna'), n)) })), table.numRows);
}

function fillColumn(v: Vector, name: string, value: FillValue): Vector | null {
  const t = valueTypeOf(v.type);
  const miss = missingMask(v, name);
  if (typeof value === 'number' && (t === 'float' || t === 'int')) {
    if (t === 'int' && !Number.isInteger(value)) return null;
    const vals = Float64Array.from(numView(v, name).values);
    for (let i = 0; i < vals.length; i++) if (miss[i]) vals[i] = value;
    return t === 'int' ? intVector(vals) : floatVector(vals);
  }
  if (typeof value === 'string' && t === 'string') {
    const { codes, dict } = strView(v, name);
    let at = dict.indexOf(value);
    const d = at >= 0 ? dict : [...dict, value];
    if (at < 0) at = dict.length;
    const c = Int32Array.from(codes);
    for (let i = 0; i < c.length; i++) if (miss[i]) c[i] = at;
    return stringVector(c, d);
  }
  if (typeof value === 'boolean' && t === 'bool') {
    const b = Uint8Array.from(boolView(v, name).values);
    for (let i = 0; i < b.length; i++) if (miss[i]) b[i] = value ? 1 : 0;
    return boolVector(b);
  }
  if (typeof value === 'number' && t === 'timestamp') {
    const vals = Float64Array.from(numView(v, name).values);
    for (let i = 0; i < vals.length; i++) if (miss[i]) vals[i] = value;
    return timestampVector(vals);
  }
  return null;
}

/**
 * Missing values replaced by `value` in every column of its type (numbers fill int and float
 * columns, an integer only where it fits an int column; strings fill string columns; booleans
 * bool columns), or in the columns of `subset`, each of which must take it.
 */
export function fillna(table: Table, value: FillValue, subset?: string[]): Table {
  const only = subset && subset.length ? names(table, subset, 'fillna') : null;
  return tableOf(table.schema.fields.map((f) => {
    const v = table.getChild(f.name) as Vector;
    if (only && !only.includes(f.name)) return { name: f.name, vector: v };
    const filled = fillColumn(v, f.name, value);
    if (!filled && only) throw new Error(`fillna: column '${f.name}' (${valueTypeOf(f.type) ?? String(f.type)}) cannot hold ${JSON.stringify(value)}`);
    return { name: f.name, vector: filled ?? v };
  }), table.numRows);
}

/** Rows without a missing value in `subset` (how 'any'), or with at least one present (how 'all'). */
export function dropna(table: Table, subset?: string[], how: 'any' | 'all' = 'any', thresh?: number): Table {
  const masks = names(table, subset, 'dropna').map((n) => missingMask(column(table, n, 'dropna'), n));
  // pandas: thresh (rows need at least that many present values) takes the place of how.
  const need = thresh ?? (how === 'any' ? masks.length : 1);
  const keep = new Uint8Array(table.numRows);
  for (let i = 0; i < keep.length; i++) {
    let missing = 0;
    for (const m of masks) missing += m[i];
    keep[i] = masks.length - missing >= need ? 1 : 0;
  }
  return filterTable(table, keep);
}
