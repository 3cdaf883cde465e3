/**
 * Task handlers of large-array summaries (main/engine/compile/summary-lower.ts). Partials are
 * small float64 arrays, not json, so NaN and ±Infinity survive the trip between workers:
 * stats = [min, max, sum, count], hist = counts per bin. Semantics follow results.ts `summarize`.
 */
import type { ChunkValue, NDArray } from '../../../common/arrays';
import { registerArrayOp } from '../../handlers';

function arrayAt(inputs: ChunkValue[], i: number, what: string): NDArray {
  const v = inputs[i];
  if (v?.kind !== 'array') throw new Error(`${what}: input ${i} is ${v ? `a ${v.kind}` : 'missing'}, not an array`);
  return v.array;
}

const f64 = (data: number[]): ChunkValue => ({ kind: 'array', array: { dtype: 'float64', shape: [data.length], data: Float64Array.from(data) } });

/** [min, max, sum, count] of one block: NaN never wins min/max, but makes the sum NaN. */
export function blockStats(a: NDArray): number[] {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  const d = a.data;
  for (let i = 0; i < d.length; i++) {
    const x = Number(d[i]);
    if (x < min) min = x;
    if (x > max) max = x;
    sum += x;
  }
  return [min, max, sum, d.length];
}

/** Counts over `bins` equal bins of [min, max]; the max lands in the last bin; NaN is skipped. */
export function blockHistogram(a: NDArray, min: number, max: number, bins: number): number[] {
  const counts = new Array<number>(bins).fill(0);
  const width = (max - min) / bins;
  const d = a.data;
  for (let i = 0; i < d.length; i++) {
    const x = Number(d[i]);
    if (x !== x) continue;
    counts[width > 0 ? Math.min(bins - 1, Math.floor((x - min) / width)) : 0]++;
  }
  return counts;
}

registerArrayOp('summary-stats', async (_p, inputs) => ({ value: f64(blockStats(arrayAt(inputs, 0, 'summary-stats'))), backend: 'js' }));

registerArrayOp('summary-stats-combine', async (_p, inputs) => {
  const out = [Infinity, -Infinity, 0, 0];
  inputs.forEach((_, i) => {
    const [mn, mx, s, c] = arrayAt(inputs, i, 'summary-stats-combine').data as Float64Array;
    if (mn < out[0]) out[0] = mn;
    if (mx > out[1]) out[1] = mx;
    out[2] += s;
    out[3] += c;
  });
  return { value: f64(out), backend: 'js' };
});

registerArrayOp('summary-hist', async ({ bins }, inputs) => {
  const [min, max] = arrayAt(inputs, 1, 'summary-hist').data as Float64Array;
  return { value: f64(blockHistogram(arrayAt(inputs, 0, 'summary-hist'), min, max, bins)), backend: 'js' };
});

registerArrayOp('summary-hist-combine', async (_p, inputs) => {
  const parts = inputs.map((_, i) => arrayAt(inputs, i, 'summary-hist-combine').data as Float64Array);
  const out = new Array<number>(parts[0].length).fill(0);
  for (const p of parts) p.forEach((x, k) => (out[k] += x));
  return { value: f64(out), backend: 'js' };
});

registerArrayOp('summary-bundle', async (_p, inputs) => ({
  value: { kind: 'arrays', arrays: { stats: arrayAt(inputs, 0, 'summary-bundle'), hist: arrayAt(inputs, 1, 'summary-bundle'), corner: arrayAt(inputs, 2, 'summary-bundle') } },
  backend: 'js',
}));
