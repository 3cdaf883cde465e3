/**
 * An array node's NDArray as a table: a 1-D array is one column; a 2-D array (rows, k) gives k
 * columns. float arrays become Float64 columns, int32 Int32, int64 Int64.
 */
import type { Table, Vector } from 'apache-arrow';
import type { NDArray } from '../../../common/arrays';
import { floatVector, int32Vector, intVector } from './build';
import { tableOf } from './gather';

export function tableFromArray(arr: NDArray, columns?: string[]): Table {
  if (arr.shape.length !== 1 && arr.shape.length !== 2) throw new Error(`from array: needs a 1-D or 2-D array, got shape [${arr.shape.join(', ')}]`);
  const rows = arr.shape[0];
  const k = arr.shape.length === 1 ? 1 : arr.shape[1];
  const names = columns ?? Array.from({ length: k }, (_, j) => (k === 1 ? 'value' : `c${j}`));
  if (names.length !== k) throw new Error(`from array: ${names.length} column names given for ${k} columns`);
  if (new Set(names).size !== k) throw new Error('from array: column names must differ');
  const cols: { name: string; vector: Vector }[] = names.map((name, j) => {
    if (arr.dtype === 'int32') {
      const out = new Int32Array(rows);
      const src = arr.data as Int32Array;
      for (let i = 0; i < rows; i++) out[i] = src[i * k + j];
      return { name, vector: int32Vector(out) };
    }
    const out = new Float64Array(rows);
    if (arr.dtype === 'int64') {
      const src = arr.data as BigInt64Array;
      for (let i = 0; i < rows; i++) out[i] = Number(src[i * k + j]);
      return { name, vector: intVector(out) };
    }
    const src = arr.data as Float64Array | Float32Array;
    for (let i = 0; i < rows; i++) out[i] = src[i * k + j];
    return { name, vector: floatVector(out) };
  });
  return tableOf(cols, rows);
}
