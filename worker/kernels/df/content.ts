/**
 * A table's logical content, for digests: the column names with their expression-language types
 * and the values column by column, independent of how Arrow encodes them.
 *
 * The IPC bytes of one table are not canonical: they carry apache-arrow's per-process dictionary
 * ids (a counter that grows with every Dictionary type made), the chunking, and the choice of
 * dictionary-encoded or plain strings. A digest over them differs between two runs with identical
 * tables (issue 18, item 8). This form drops all of that:
 *
 * - types: `int` (any integer width), `float`, `bool`, `string` (Utf8, LargeUtf8 or a dictionary
 *   of strings), `timestamp` (any unit, and dates); other types by Arrow's name (lists of a
 *   groupby partial, say), their values through Arrow's accessor.
 * - values: ints as bigints (exact: canonical JSON writes them as decimal strings), floats as
 *   numbers (the digest rounds them to its significant digits), timestamps as ISO strings (to
 *   the ms, exact; as numbers they would be rounded), strings and booleans as themselves,
 *   missing values as null. NaN stays NaN.
 */
import { DataType, type Table, type Vector } from 'apache-arrow';
import { boolView, numView, strView, valueTypeOf } from './columns';

export interface TableContent {
  columns: { name: string; type: string }[];
  rows: number;
  values: unknown[][];
}

function bigintColumn(v: Vector): (bigint | null)[] {
  const out: (bigint | null)[] = new Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v.get(i) as number | bigint | null;
    out[i] = x === null || x === undefined ? null : BigInt(x);
  }
  return out;
}

function columnValues(v: Vector, name: string, type: string): unknown[] {
  const n = v.length;
  if (type === 'int') return bigintColumn(v);
  if (type === 'float' || type === 'timestamp') {
    const { values, valid } = numView(v, name);
    const out: unknown[] = new Array(n);
    for (let i = 0; i < n; i++) {
      if (valid && !valid[i]) out[i] = null;
      else out[i] = type === 'float' ? values[i] : new Date(values[i]).toISOString();
    }
    return out;
  }
  if (type === 'bool') {
    const { values, valid } = boolView(v, name);
    return Array.from(values, (x, i) => (valid && !valid[i] ? null : x === 1));
  }
  if (type === 'string') {
    const { codes, dict, valid } = strView(v, name);
    return Array.from(codes, (c, i) => (valid && !valid[i] ? null : dict[c]));
  }
  const out: unknown[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const x = v.get(i) as unknown;
    out[i] = x !== null && typeof x === 'object' && 'toArray' in x ? Array.from((x as Vector).toArray() as ArrayLike<unknown>) : (x ?? null);
  }
  return out;
}

/** The logical content of `table` (see the module comment). */
export function tableContent(table: Table): TableContent {
  const columns = table.schema.fields.map((f) => ({ name: f.name, type: valueTypeOf(f.type) ?? (DataType.isDictionary(f.type) ? `dictionary<${String(f.type.dictionary)}>` : String(f.type)) }));
  const values = columns.map((c) => columnValues(table.getChild(c.name) as Vector, c.name, c.type));
  return { columns, rows: table.numRows, values };
}
