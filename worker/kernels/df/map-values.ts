/**
 * pandas' s.map(dict): each value of a column looked up in a mapping; a value the mapping lacks
 * (and a null) gives null, as pandas' NaN. The mapping's keys are text (JSON object keys): a
 * string column matches them as they are, a number column by the number's shortest decimal text
 * (1 -> "1", 2.5 -> "2.5"), so {"1": "one"} maps the int 1. The mapping's values are all numbers,
 * all strings or all booleans (or null), checked where the node compiles.
 */
import type { Table, Vector } from 'apache-arrow';
import { boolVector, floatVector, intVector, stringVector } from './build';
import { column, numView, strView, valueTypeOf } from './columns';
import { tableOf } from './gather';

export type MapValue = number | string | boolean | null;
export type MapType = 'int' | 'float' | 'string' | 'bool';

export interface MapSpec {
  column: string;
  mapping: Record<string, MapValue>;
  /** The new column's name; absent: the column is replaced. */
  as?: string;
  type: MapType;
}

/** Mapped value per distinct key text, computed once per dictionary entry or per row. */
function lookup(table: Table, spec: MapSpec): MapValue[] {
  const v = column(table, spec.column, 'map');
  const t = valueTypeOf(v.type);
  const get = (k: string): MapValue => (Object.prototype.hasOwnProperty.call(spec.mapping, k) ? spec.mapping[k] : null);
  if (t === 'string') {
    const s = strView(v, spec.column);
    const per = s.dict.map(get);
    return Array.from(s.codes, (c, i) => (s.valid && !s.valid[i] ? null : per[c]));
  }
  if (t !== 'int' && t !== 'float') throw new Error(`map: column '${spec.column}' is ${t ?? String(v.type)}; map takes a string or number column`);
  const x = numView(v, spec.column);
  return Array.from(x.values, (n, i) => ((x.valid && !x.valid[i]) || n !== n ? null : get(String(n))));
}

export function mapValues(table: Table, spec: MapSpec): Table {
  const got = lookup(table, spec);
  const n = got.length;
  const valid = Uint8Array.from(got, (x) => (x === null ? 0 : 1));
  let vector: Vector;
  if (spec.type === 'string') {
    const index = new Map<string, number>();
    const codes = Int32Array.from(got, (x) => {
      if (x === null) return 0;
      const k = String(x);
      let c = index.get(k);
      if (c === undefined) index.set(k, (c = index.size));
      return c;
    });
    vector = stringVector(codes, [...index.keys()], valid);
  } else if (spec.type === 'bool') vector = boolVector(Uint8Array.from(got, (x) => (x === true ? 1 : 0)), valid);
  else {
    const values = Float64Array.from(got, (x) => (typeof x === 'number' ? x : 0));
    vector = spec.type === 'int' ? intVector(values, valid) : floatVector(values, valid);
  }
  const name = spec.as ?? spec.column;
  const cols = table.schema.fields.map((f) => ({ name: f.name, vector: f.name === name ? vector : (table.getChild(f.name) as Vector) }));
  if (!cols.some((c) => c.name === name)) cols.push({ name, vector });
  return tableOf(cols, n);
}
