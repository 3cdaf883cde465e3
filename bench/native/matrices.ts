/**
 * Inputs for the native benchmarks: uniform [0, 1) matrices from an LCG. `period` repeats the
 * first values to fill large matrices fast (the timings do not depend on the values).
 */
import type { NDArray } from '../../common/arrays';

export function uniformMatrix(rows: number, cols: number, dtype: 'float64' | 'float32', seed: number, period = Infinity): NDArray {
  const data = dtype === 'float32' ? new Float32Array(rows * cols) : new Float64Array(rows * cols);
  let s = seed >>> 0;
  const head = Math.min(data.length, period);
  for (let i = 0; i < head; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = s / 4294967296;
  }
  for (let filled = head; filled < data.length; filled *= 2) data.copyWithin(filled, 0, Math.min(filled, data.length - filled));
  return { dtype, shape: [rows, cols], data };
}
