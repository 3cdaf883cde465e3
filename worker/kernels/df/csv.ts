/**
 * CSV source: a whole file or a byte range of one, into an Arrow table.
 *
 * Byte ranges follow dask's read_bytes with delimiter '\n': a line belongs to the range that
 * holds its first byte. A range [start, end) therefore skips the partial line it starts in
 * (unless start is 0 or follows a newline) and reads past `end` to finish its last line. The
 * ranges of a file, together, give every line exactly once. (Like dask, this assumes no newline
 * inside a quoted field; whole-file reads handle those.)
 *
 * The header is the file's first line (read separately for ranges after the first). Types are
 * given per column, or inferred per partition (int, float, bool, string; timestamps only when
 * given); a planner reading many partitions should call inferCsvTypes once and pass the result
 * to every partition so they all agree. Empty fields are null.
 *
 * Bad input: a row with the wrong number of fields, a value that does not parse as its given
 * type, or an unterminated quote is malformed. Policy 'error' throws a CsvError naming the file
 * and the line; 'skip' drops the row and counts it.
 */
import type { Table, Vector } from 'apache-arrow';
import { parseIsoTimestamp } from '../../../common/expr/check';
import { boolVector, floatVector, int64Vector, stringVector, timestampVector } from './build';
import { FLOAT, parseCsvPart, type CsvOptions, type CsvPart, type CsvType } from './csv-text';
import { tableOf } from './gather';

export { CsvError, csvPartitions, inferCsvTypes, inferType, type CsvOptions, type CsvPart, type CsvType } from './csv-text';

export interface CsvResult {
  table: Table;
  /** Malformed rows skipped (policy 'skip'). */
  skipped: number;
}

function parseFloatText(v: string): number {
  const l = v.toLowerCase();
  if (l === 'nan') return NaN;
  if (l === 'inf' || l === 'infinity' || l === '+inf' || l === '+infinity') return Infinity;
  if (l === '-inf' || l === '-infinity') return -Infinity;
  return FLOAT.test(v) ? Number(v) : NaN;
}

function build(values: string[], type: CsvType, keep: Uint8Array, kept: number): Vector {
  const valid = new Uint8Array(kept);
  let o = 0;
  if (type === 'string') {
    const index = new Map<string, number>();
    const dict: string[] = [];
    const codes = new Int32Array(kept);
    for (let r = 0; r < values.length; r++) {
      if (!keep[r]) continue;
      const v = values[r];
      if (v !== '') {
        let c = index.get(v);
        if (c === undefined) {
          c = dict.length;
          dict.push(v);
          index.set(v, c);
        }
        codes[o] = c;
        valid[o] = 1;
      }
      o++;
    }
    return stringVector(codes, dict, valid);
  }
  if (type === 'int') {
    // Parsed as BigInts: an int64 above 2**53 keeps every digit (a double would round it).
    const ints = new BigInt64Array(kept);
    for (let r = 0; r < values.length; r++) {
      if (!keep[r]) continue;
      if (values[r] !== '') {
        valid[o] = 1;
        ints[o] = BigInt(values[r]);
      }
      o++;
    }
    return int64Vector(ints, valid);
  }
  const x = new Float64Array(kept);
  const bools = new Uint8Array(kept);
  for (let r = 0; r < values.length; r++) {
    if (!keep[r]) continue;
    const v = values[r];
    if (v !== '') {
      valid[o] = 1;
      if (type === 'bool') bools[o] = v.toLowerCase() === 'true' ? 1 : 0;
      else if (type === 'timestamp') x[o] = parseIsoTimestamp(v);
      else x[o] = parseFloatText(v);
    }
    o++;
  }
  if (type === 'bool') return boolVector(bools, valid);
  if (type === 'timestamp') return timestampVector(x, valid);
  return floatVector(x, valid);
}

/** Reads a CSV file or byte range of one (see the module comment). */
export function readCsv(part: CsvPart, opts: CsvOptions = {}): CsvResult {
  const { names, columns, types, keep, kept, skipped } = parseCsvPart(part, opts);
  const cols = names.map((nme, j) => ({ name: nme, vector: build(columns[j], types[j], keep, kept) }));
  return { table: tableOf(cols, kept), skipped };
}
