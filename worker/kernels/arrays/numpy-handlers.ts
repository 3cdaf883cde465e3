/**
 * js handlers of the NumPy-style array nodes that are not fused programs
 * (main/engine/ops/arrays-scan.ts, arrays-join.ts, arrays-stats.ts): cumulate, reshape,
 * histogram (+ edges, sum-arrays), percentile and percentile along an axis. Each follows NumPy's arithmetic where the
 * order of operations shows in the last bits (the scan's order, the histogram's bin edges, the
 * percentile's linear interpolation).
 */
import type { ArrayOpParams } from '../../../common/array-op-params';
import type { ChunkValue, DType, NDArray, NumericArray } from '../../../common/arrays';
import { allocate, sizeOf, stridesOf } from '../../../common/arrays';
import { registerArrayOp } from '../../handlers';

function arrayAt(inputs: ChunkValue[], i: number, what: string): NDArray {
  const v = inputs[i];
  if (v?.kind !== 'array') throw new Error(`${what}: input ${i} is ${v ? `a ${v.kind}` : 'missing'}, not an array`);
  return v.array;
}

const get = (d: NumericArray, i: number): number => Number(d[i]);
function put(d: NumericArray, i: number, v: number): void {
  if (d instanceof BigInt64Array) d[i] = BigInt(Math.trunc(v));
  else d[i] = v;
}

/** Scans `x` along `axis` from the last slice of `prev` (the previous block's result) or from scratch. */
export function cumulate(x: NDArray, prev: NDArray | null, axis: number, op: 'sum' | 'prod', dtype: DType): NDArray {
  const out = allocate(dtype, sizeOf(x.shape));
  const st = stridesOf(x.shape);
  const len = x.shape[axis];
  const inner = st[axis];
  const outer = sizeOf(x.shape.slice(0, axis));
  const pst = prev ? stridesOf(prev.shape) : [];
  const plen = prev ? prev.shape[axis] : 0;
  const f32 = dtype === 'float32';
  const r = (v: number) => (f32 ? Math.fround(v) : v);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      let acc = op === 'sum' ? 0 : 1;
      let first = true;
      if (prev) {
        acc = get(prev.data, o * pst[axis] * plen + (plen - 1) * pst[axis] + i);
        first = false;
      }
      for (let k = 0; k < len; k++) {
        const at = o * inner * len + k * inner + i;
        const v = get(x.data, at);
        acc = first ? r(v) : r(op === 'sum' ? acc + v : acc * v);
        first = false;
        put(out, at, acc);
      }
    }
  }
  return { dtype, shape: [...x.shape], data: out };
}

registerArrayOp('cumulate', async (params, inputs) => {
  const x = arrayAt(inputs, 0, 'cumulate');
  const prev = inputs.length > 1 ? arrayAt(inputs, 1, 'cumulate') : null;
  return { value: { kind: 'array', array: cumulate(x, prev, params.axis, params.op, params.dtype) }, backend: 'js' };
});

/** One output block of a C-order reshape, read from the input blocks `depBlocks` (inputs in that order). */
export function reshapeBlock(p: ArrayOpParams<'reshape'>, inputs: NDArray[]): NDArray {
  const out = allocate(p.dtype, sizeOf(p.shape));
  const inStrides = stridesOf(p.inShape);
  const outStrides = stridesOf(p.outShape);
  // Per input axis: coordinate -> (block, offset in block).
  const blockOf = p.inChunks.map((cs) => {
    const b: number[] = [];
    const off: number[] = [];
    cs.forEach((n, i) => {
      for (let k = 0; k < n; k++) {
        b.push(i);
        off.push(k);
      }
    });
    return { b, off };
  });
  const dep = new Map(p.depBlocks.map((bi, i) => [bi.join(','), i]));
  const nd = p.shape.length;
  const idx = new Array<number>(nd).fill(0);
  const n = sizeOf(p.shape);
  for (let k = 0; k < n; k++) {
    let flat = 0;
    for (let d = 0; d < nd; d++) flat += (p.start[d] + idx[d]) * outStrides[d];
    const bi: number[] = [];
    const local: number[] = [];
    for (let d = 0; d < p.inShape.length; d++) {
      const c = Math.floor(flat / inStrides[d]) % p.inShape[d];
      bi.push(blockOf[d].b[c]);
      local.push(blockOf[d].off[c]);
    }
    const j = dep.get(bi.join(','));
    if (j === undefined) throw new Error(`reshape: input block (${bi.join(', ')}) was not given`);
    const src = inputs[j];
    const ss = stridesOf(src.shape);
    put(out, k, get(src.data, local.reduce((s, v, d) => s + v * ss[d], 0)));
    for (let d = nd - 1; d >= 0; d--) {
      if (++idx[d] < p.shape[d]) break;
      idx[d] = 0;
    }
  }
  return { dtype: p.dtype, shape: [...p.shape], data: out };
}

registerArrayOp('reshape', async (params, inputs) => {
  const arrays = inputs.map((_, i) => arrayAt(inputs, i, 'reshape'));
  return { value: { kind: 'array', array: reshapeBlock(params, arrays) }, backend: 'js' };
});

/** numpy.histogram's edges for `bins` equal bins of [lo, hi]: linspace, the last edge exactly hi. */
export function histogramEdges(lo: number, hi: number, bins: number): Float64Array {
  const [a, b] = lo === hi ? [lo - 0.5, hi + 0.5] : [lo, hi];
  const e = new Float64Array(bins + 1);
  const step = (b - a) / bins;
  for (let i = 0; i <= bins; i++) e[i] = i * step + a;
  e[bins] = b;
  return e;
}

/** Counts per bin as numpy.histogram computes them for uniform bins (index from the scaled value, then corrected against the edges). */
export function histogramCounts(x: NDArray, lo: number, hi: number, bins: number): BigInt64Array {
  const edges = histogramEdges(lo, hi, bins);
  const [a, b] = [edges[0], edges[bins]];
  const norm = bins / (b - a);
  const counts = new BigInt64Array(bins);
  for (let i = 0; i < x.data.length; i++) {
    const v = get(x.data, i);
    if (!(v >= a && v <= b)) continue;
    let k = Math.floor((v - a) * norm);
    if (k === bins) k--;
    if (v < edges[k]) k--;
    else if (v >= edges[k + 1] && k !== bins - 1) k++;
    counts[k]++;
  }
  return counts;
}

registerArrayOp('histogram', async ({ bins, lo, hi }, inputs) => {
  const counts = inputs.length ? histogramCounts(arrayAt(inputs, 0, 'histogram'), lo, hi, bins) : new BigInt64Array(bins);
  return { value: { kind: 'array', array: { dtype: 'int64', shape: [bins], data: counts } }, backend: 'js' };
});

registerArrayOp('histogram-edges', async ({ bins, lo, hi }) => {
  const e = histogramEdges(lo, hi, bins);
  return { value: { kind: 'array', array: { dtype: 'float64', shape: [e.length], data: e } }, backend: 'js' };
});

registerArrayOp('sum-arrays', async (_params, inputs) => {
  const arrays = inputs.map((_, i) => arrayAt(inputs, i, 'sum-arrays'));
  const first = arrays[0];
  const out = allocate(first.dtype, first.data.length);
  for (const a of arrays) {
    if (a.data.length !== out.length) throw new Error(`sum-arrays: lengths ${a.data.length} and ${out.length} differ`);
    if (out instanceof BigInt64Array) for (let i = 0; i < out.length; i++) out[i] += (a.data as BigInt64Array)[i];
    else for (let i = 0; i < out.length; i++) (out as Float64Array)[i] += Number(a.data[i]);
  }
  return { value: { kind: 'array', array: { dtype: first.dtype, shape: [...first.shape], data: out } }, backend: 'js' };
});

/** numpy.percentile's 'linear' method over all values; q in [0, 1]. NaN anywhere gives NaN, as NumPy. */
export function quantiles(values: Float64Array, q: number[]): Float64Array {
  const out = new Float64Array(q.length);
  if (values.some((v) => v !== v)) return out.fill(NaN);
  const s = Float64Array.from(values).sort();
  const n = s.length;
  q.forEach((p, i) => {
    const h = (n - 1) * p;
    const lo = Math.floor(h);
    const hi = Math.min(lo + 1, n - 1);
    const g = h - lo;
    // NumPy's _lerp: a + (b - a) * g, from the other end when g >= 0.5 (exact at the ends).
    const a = s[lo];
    const b = s[hi];
    const d = b - a;
    out[i] = g >= 0.5 ? b - d * (1 - g) : a + d * g;
  });
  return out;
}

registerArrayOp('percentile', async ({ q }, inputs) => {
  let n = 0;
  const arrays = inputs.map((_, i) => arrayAt(inputs, i, 'percentile'));
  for (const a of arrays) n += a.data.length;
  const all = new Float64Array(n);
  let k = 0;
  for (const a of arrays) for (let i = 0; i < a.data.length; i++) all[k++] = get(a.data, i);
  return { value: { kind: 'array', array: { dtype: 'float64', shape: [q.length], data: quantiles(all, q) } }, backend: 'js' };
});

/**
 * Maps every lane along `axis` of a block that holds the whole axis to `len` values (`f` gets the
 * lane in the block's dtype), as a block of `dtype`: with `first` the new axis of length `len`
 * comes first (percentile's q axis), else it replaces the lane's axis (topk).
 */
function mapLanes(a: NDArray, axis: number, len: number, dtype: DType, first: boolean, what: string, f: (lane: NumericArray) => ArrayLike<number | bigint>): NDArray {
  if (axis >= a.shape.length) throw new Error(`${what}: axis ${axis} of a ${a.shape.length}-d block`);
  const n = a.shape[axis];
  const inner = sizeOf(a.shape.slice(axis + 1));
  const outer = sizeOf(a.shape.slice(0, axis));
  const lanes = outer * inner;
  const out = allocate(dtype, len * lanes);
  const lane = allocate(a.dtype, n);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      for (let k = 0; k < n; k++) lane[k] = a.data[(o * n + k) * inner + i];
      const v = f(lane);
      for (let j = 0; j < len; j++) {
        const at = first ? j * lanes + o * inner + i : (o * len + j) * inner + i;
        const x = v[j];
        if (out instanceof BigInt64Array) out[at] = typeof x === 'bigint' ? x : BigInt(Math.trunc(x));
        else out[at] = Number(x);
      }
    }
  }
  const rest = a.shape.filter((_, d) => d !== axis);
  return { dtype, shape: first ? [len, ...rest] : a.shape.map((s, d) => (d === axis ? len : s)), data: out };
}

/**
 * numpy.percentile(x, q, axis) of a block that holds the whole axis: each lane sorted once and
 * interpolated at every q (quantiles), the q axis first as NumPy puts it; computed in float64 and
 * stored in the result dtype.
 */
registerArrayOp('percentile-axis', async (params, inputs) => {
  const { q, axis, dtype } = params;
  const a = arrayAt(inputs, 0, 'percentile-axis');
  return { value: { kind: 'array', array: mapLanes(a, axis, q.length, dtype, true, 'percentile-axis', (lane) => quantiles(Float64Array.from(lane, Number), q)) }, backend: 'js' };
});

/**
 * dask.array.topk along `axis` of a block that holds the whole axis: k > 0 the k largest,
 * largest first; k < 0 the |k| smallest, smallest first (a sort in the block's dtype, so int64
 * stays exact; NaN sorts last, so it counts as the largest).
 */
registerArrayOp('topk-axis', async (params, inputs) => {
  const { k, axis } = params;
  const a = arrayAt(inputs, 0, 'topk-axis');
  const len = Math.abs(k);
  const pick = (lane: NumericArray) => {
    const s = lane.slice().sort();
    return k > 0 ? Array.from({ length: len }, (_, j) => s[s.length - 1 - j]) : Array.from({ length: len }, (_, j) => s[j]);
  };
  return { value: { kind: 'array', array: mapLanes(a, axis, len, a.dtype, false, 'topk-axis', pick) }, backend: 'js' };
});
