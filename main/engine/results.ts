/**
 * Turning fetched output blocks into what a run reports: small arrays whole, large ones as a
 * summary (min, max, mean, histogram, corner).
 */
import type { ChunkValue } from '../../common/arrays';
import { sizeOf } from '../../common/arrays';
import type { ArraySummary, ResultValue } from '../../common/results';
import type { NodeOutput } from '../../common/tasks';
import { blockIndices, blockOffset, blockShape } from './compile/chunks';

/** Arrays up to this many elements come back whole. */
export const WHOLE_ARRAY_LIMIT = 1_000_000;

function toNumber(x: number | bigint): number {
  return typeof x === 'bigint' ? Number(x) : x;
}

/** An output's `digestDigits` (float32 lineage, common/digest.ts), passed on to its result value. */
export function digitsOf(out: { digestDigits?: number }): { digestDigits?: number } {
  return out.digestDigits === undefined ? {} : { digestDigits: out.digestDigits };
}

/**
 * An output with unknown chunk sizes (a mask selection: compile/unknown-sizes.ts) with the sizes
 * its blocks turned out to have; any other output as it is. Blocks come in C order over the
 * block grid; along an unknown axis, every block of one grid position there must agree.
 */
function withRunSizes(out: Extract<NodeOutput, { kind: 'array' }>, blocks: ChunkValue[]): Extract<NodeOutput, { kind: 'array' }> {
  if (!out.shape.includes(-1)) return out;
  const chunks = out.chunks.map((c) => [...c]);
  blockIndices(out.chunks).forEach((idx, b) => {
    const v = blocks[b];
    if (v?.kind !== 'array' || v.array.shape.length !== out.shape.length) throw new Error(`output block ${b} of unknown size is not a ${out.shape.length}-d array`);
    idx.forEach((i, d) => {
      if (out.shape[d] !== -1) return;
      const n = v.array.shape[d];
      if (chunks[d][i] !== -1 && chunks[d][i] !== n) throw new Error(`output block ${b} has ${n} along axis ${d}, its neighbours ${chunks[d][i]}`);
      chunks[d][i] = n;
    });
  });
  return { ...out, shape: chunks.map((c) => c.reduce((a, b) => a + b, 0)), chunks };
}

export function assembleArray(out0: Extract<NodeOutput, { kind: 'array' }>, blocks: ChunkValue[]): ResultValue {
  const out = withRunSizes(out0, blocks);
  const n = sizeOf(out.shape);
  const data = new Float64Array(n);
  const strides = out.shape.map((_, d) => out.shape.slice(d + 1).reduce((a, b) => a * b, 1));
  blockIndices(out.chunks).forEach((idx, b) => {
    const v = blocks[b];
    if (v.kind !== 'array') throw new Error(`output block ${b} is a ${v.kind}`);
    const bs = blockShape(out.chunks, idx);
    const off = blockOffset(out.chunks, idx);
    const src = v.array.data;
    const m = sizeOf(bs);
    for (let k = 0; k < m; k++) {
      let r = k;
      let flat = 0;
      for (let d = bs.length - 1; d >= 0; d--) {
        const i = r % bs[d];
        r = Math.floor(r / bs[d]);
        flat += (off[d] + i) * strides[d];
      }
      data[flat] = toNumber(src[k]);
    }
  });
  const digits = digitsOf(out);
  if (n <= WHOLE_ARRAY_LIMIT) return { kind: 'array', dtype: out.dtype, shape: out.shape, data: Array.from(data), summary: summarize(data, out.shape), ...digits };
  return { kind: 'array', dtype: out.dtype, shape: out.shape, summary: summarize(data, out.shape), ...digits };
}

export function summarize(data: Float64Array, shape: number[], bins = 20): ArraySummary {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (const x of data) {
    if (x < min) min = x;
    if (x > max) max = x;
    sum += x;
  }
  const counts = new Array<number>(bins).fill(0);
  const width = (max - min) / bins;
  for (const x of data) counts[width > 0 ? Math.min(bins - 1, Math.floor((x - min) / width)) : 0]++;
  const cshape = shape.map((s) => Math.min(s, 8));
  const corner: number[] = [];
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const total = sizeOf(cshape);
  for (let k = 0; k < total; k++) {
    let r = k;
    let flat = 0;
    for (let d = cshape.length - 1; d >= 0; d--) {
      flat += (r % cshape[d]) * strides[d];
      r = Math.floor(r / cshape[d]);
    }
    corner.push(data[flat]);
  }
  return { min, max, mean: data.length ? sum / data.length : NaN, histogram: { bins, counts }, corner: { shape: cshape, data: corner } };
}
