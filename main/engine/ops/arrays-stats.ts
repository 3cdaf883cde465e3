/**
 * Statistics nodes: histogram (numpy.histogram with a number of bins and a range: per-block
 * counts summed in a tree, so it scales like a reduction), percentile, quantile and median over
 * all elements (numpy's default 'linear' method: exact, so one task gathers every block and
 * sorts; dask.array.percentile is approximate instead) or along one axis (the array rechunked so
 * the axis is whole in each block, then one task per block sorts its lanes, as
 * dask.array.median does), and tensordot (numpy.tensordot with an integer
 * `axes`: both sides reshaped to matrices, one blockwise matmul, reshaped back).
 */
import { arrayOpSpec } from '../../../common/array-op-params';
import { bytesPerElement, sizeOf, type DType } from '../../../common/arrays';
import { fromKeys, materialize, viewAxes } from '../compile/array-lower';
import { blockIndices, blockShape, eachBlockIndex, normalizeChunks } from '../compile/chunks';
import { rechunk } from '../compile/rechunk';
import { arrayInput, axisOf, num, nums } from './arrays-core';
import { reshapeArray } from './arrays-join';
import { LINALG_ARRAY_OPS } from './arrays-linalg';
import { castArray } from './arrays-select';
import type { TaskSpec } from '../../../common/tasks';
import type { BuildContext, LazyArray, OpDef } from './types';

const prefixed = (ctx: BuildContext, prefix: string): BuildContext => ({ ...ctx, key: (name, idx) => ctx.key(`${prefix}${name}`, idx) });

function blockKeys(x: LazyArray): string[] {
  return [...eachBlockIndex(x.chunks)].map((idx) => x.block(idx).deps[0]);
}

const histogram: OpDef = {
  spec: {
    op: 'histogram',
    label: 'Histogram',
    category: 'arrays',
    doc: 'numpy.histogram(x, bins, range): counts in `bins` equal bins over [min, max] (the last bin includes max; values outside and NaN are not counted), and the bin edges.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [
      { name: 'counts', type: 'array' },
      { name: 'edges', type: 'array' },
    ],
    params: [
      { name: 'bins', kind: 'number', integer: true, min: 1, default: 10 },
      { name: 'range', kind: 'numbers', minLength: 2, maxLength: 2, required: true, doc: '[min, max] (dask.array needs it too)' },
      { name: 'split_every', kind: 'number', integer: true, min: 2, default: 8 },
    ],
  },
  build(ctx) {
    const x = materialize(arrayInput(ctx, 'x'), ctx, 'src');
    const bins = (ctx.params.bins ?? 10) as number;
    const [lo, hi] = nums(ctx, 'range');
    if (!(lo <= hi) || !Number.isFinite(lo) || !Number.isFinite(hi)) return ctx.fail('params.range', `max must be larger than min, got [${lo}, ${hi}]`);
    const splitEvery = (ctx.params.split_every ?? 8) as number;
    const params = { bins, lo, hi };
    let level = blockKeys(x).map((dep, i) => {
      const key = ctx.key('histogram', [i]);
      ctx.emit({ key, deps: [dep], spec: arrayOpSpec('histogram', params), resource: 'any', op: 'histogram', outBytes: 8 * bins, workBytes: 8 * bins });
      return key;
    });
    let depth = 0;
    while (level.length > 1) {
      const next: string[] = [];
      for (let i = 0; i < level.length; i += splitEvery) {
        const key = ctx.key(`histogram-sum${depth}`, [i / splitEvery]);
        ctx.emit({ key, deps: level.slice(i, i + splitEvery), spec: arrayOpSpec('sum-arrays', {}), resource: 'any', op: 'histogram-sum', outBytes: 8 * bins, workBytes: 8 * bins });
        next.push(key);
      }
      level = next;
      depth++;
    }
    if (level.length === 0) {
      const key = ctx.key('histogram', [0]);
      ctx.emit({ key, deps: [], spec: arrayOpSpec('histogram', params), resource: 'any', op: 'histogram', outBytes: 8 * bins, workBytes: 8 * bins });
      level = [key];
    }
    const edgesKey = ctx.key('edges');
    ctx.emit({ key: edgesKey, deps: [], spec: arrayOpSpec('histogram-edges', params), resource: 'any', op: 'histogram-edges', outBytes: 8 * (bins + 1), workBytes: 8 * (bins + 1) });
    return {
      counts: fromKeys([bins], [[bins]], 'int64', level, ctx.nodeId, [ctx.nodeId]),
      edges: fromKeys([bins + 1], [[bins + 1]], 'float64', [edgesKey], ctx.nodeId, [ctx.nodeId]),
    };
  },
};

/**
 * NumPy's result dtype: median keeps float32 (the rest gives float64); percentile and quantile
 * take q as a list, a float64 array, which makes every result float64.
 */
const quantileDtype = (x: LazyArray, op: string): DType => (op === 'median' && x.dtype === 'float32' ? 'float32' : 'float64');

/** numpy.percentile(x, q * 100) over every element: one task sorts them all; shape [q.length]. */
function quantilesAll(x0: LazyArray, q: number[], ctx: BuildContext, op: string): LazyArray {
  const x = materialize(x0, ctx, 'src');
  if (sizeOf(x.shape) === 0) return ctx.fail('inputs.x', `cannot take the ${op} of an empty array`);
  const key = ctx.key(op);
  const bytes = 8 * sizeOf(x.shape);
  ctx.emit({ key, deps: blockKeys(x), spec: arrayOpSpec('percentile', { q }), resource: 'any', op, outBytes: 8 * q.length, workBytes: 2 * bytes });
  const out = fromKeys([q.length], [[q.length]], 'float64', [key], ctx.nodeId, [ctx.nodeId]);
  return castArray(out, quantileDtype(x, op), ctx);
}

/**
 * One task per block of `x0` rechunked so that `axis` is whole in each block (the other axes as
 * they were), mapping each lane along it to `len` values of `dtype`: with `first` they form a new
 * leading axis (percentile's q axis), else they replace the axis (topk).
 */
function lanesAlong(x0: LazyArray, axis: number, ctx: BuildContext, op: string, spec: TaskSpec, len: number, dtype: DType, first: boolean): LazyArray {
  const n = x0.shape[axis];
  if (n === 0) return ctx.fail('inputs.x', `cannot take the ${op} along axis ${axis} of length 0`);
  const whole = x0.chunks.map((c, d) => (d === axis ? [n] : c));
  const x = rechunk(materialize(x0, ctx, 'src'), whole, ctx, 'whole');
  const keys: string[] = [];
  for (const idx of blockIndices(x.chunks)) {
    const bytes = sizeOf(blockShape(x.chunks, idx)) * bytesPerElement(x.dtype);
    const outBytes = ((len * bytes) / n / bytesPerElement(x.dtype)) * bytesPerElement(dtype);
    const key = ctx.key(op, idx.filter((_, d) => d !== axis));
    ctx.emit({ key, deps: x.block(idx).deps, spec, resource: 'any', op, outBytes, workBytes: 2 * bytes + outBytes });
    keys.push(key);
  }
  const rest = x.chunks.filter((_, d) => d !== axis);
  if (first) return fromKeys([len, ...x.shape.filter((_, d) => d !== axis)], [[len], ...rest], dtype, keys, ctx.nodeId, [ctx.nodeId]);
  return fromKeys(x.shape.map((s, d) => (d === axis ? len : s)), x.chunks.map((c, d) => (d === axis ? [len] : c)), dtype, keys, ctx.nodeId, [ctx.nodeId]);
}

/** numpy.percentile(x, q * 100, axis): shape [q.length, ...x's other axes]. */
function quantilesAlong(x: LazyArray, q: number[], axis: number, ctx: BuildContext, op: string): LazyArray {
  const dtype = quantileDtype(x, op);
  return lanesAlong(x, axis, ctx, op, arrayOpSpec('percentile-axis', { q, axis, dtype }), q.length, dtype, true);
}

const topk: OpDef = {
  spec: {
    op: 'topk',
    label: 'Top k',
    category: 'arrays',
    doc: 'dask.array.topk(x, k, axis): the k largest along the axis, largest first; a negative k gives the |k| smallest, smallest first. The axis is made whole in each block (rechunked), then each lane is sorted. NaN counts as the largest.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [
      { name: 'k', kind: 'number', integer: true, required: true, doc: 'how many; negative: the smallest' },
      { name: 'axis', kind: 'number', integer: true, default: -1, doc: 'negative counts from the end' },
    ],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    if (x.shape.length === 0) return ctx.fail('inputs.x', 'is 0-d: there is no axis to take the top k along');
    const axis = axisOf(ctx, x) ?? x.shape.length - 1;
    const k = num(ctx, 'k');
    if (!Number.isInteger(k) || k === 0 || Math.abs(k) > x.shape[axis]) return ctx.fail('params.k', `must be a non-zero integer with |k| <= ${x.shape[axis]} (the length of axis ${axis}), got ${k}`);
    return { out: lanesAlong(x, axis, ctx, 'topk', arrayOpSpec('topk-axis', { k, axis }), Math.abs(k), x.dtype, false) };
  },
};

const axisParam = { name: 'axis', kind: 'number', integer: true, doc: 'leave empty for all elements; negative counts from the end' } as const;

function percentileOp(op: 'percentile' | 'quantile'): OpDef {
  const scale = op === 'percentile' ? 100 : 1;
  return {
    spec: {
      op,
      label: op === 'percentile' ? 'Percentile' : 'Quantile',
      category: 'arrays',
      doc: `numpy.${op} over all elements or along one axis (the q axis first), 'linear' method (exact: the elements sorted, per lane along an axis). q in [0, ${scale}]: a list, so the result is float64 as NumPy's; NaN in a lane gives NaN.`,
      inputs: [{ name: 'x', type: 'array' }],
      outputs: [{ name: 'out', type: 'array' }],
      params: [{ name: 'q', kind: 'numbers', min: 0, minLength: 1, required: true, doc: `e.g. [${op === 'percentile' ? '25, 50, 75' : '0.25, 0.5, 0.75'}]` }, axisParam],
    },
    build(ctx) {
      const x = arrayInput(ctx, 'x');
      const q = nums(ctx, 'q');
      q.forEach((v) => {
        if (!(v >= 0 && v <= scale)) ctx.fail('params.q', `must be in [0, ${scale}], got ${v}`);
      });
      const axis = axisOf(ctx, x);
      const qs = q.map((v) => v / scale);
      return { out: axis === null ? quantilesAll(x, qs, ctx, op) : quantilesAlong(x, qs, axis, ctx, op) };
    },
  };
}

const median: OpDef = {
  spec: {
    op: 'median',
    label: 'Median',
    category: 'arrays',
    doc: 'numpy.median over all elements (a 0-d result) or along one axis (that axis removed): the 50th percentile, exact (the elements sorted); float32 stays float32, integers give float64; NaN in a lane gives NaN.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [axisParam],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    const axis = axisOf(ctx, x);
    const q = axis === null ? quantilesAll(x, [0.5], ctx, 'median') : quantilesAlong(x, [0.5], axis, ctx, 'median');
    // The length-1 q axis dropped: a view, no task.
    return { out: viewAxes(q, q.shape.slice(1).map((_, d) => d + 1)) };
  },
};

const tensordot: OpDef = {
  deviceLibraries: true,
  spec: {
    op: 'tensordot',
    label: 'Tensordot',
    category: 'arrays',
    doc: 'numpy.tensordot(a, b, axes=k): sums over the last k axes of a and the first k of b (k = 1 on 2-D arrays is a @ b).',
    inputs: [
      { name: 'a', type: 'array' },
      { name: 'b', type: 'array' },
    ],
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'axes', kind: 'number', integer: true, min: 0, default: 2 }],
  },
  build(ctx) {
    const a = arrayInput(ctx, 'a');
    const b = arrayInput(ctx, 'b');
    const k = (ctx.params.axes ?? 2) as number;
    if (k > a.shape.length || k > b.shape.length) return ctx.fail('params.axes', `${k} axes, but a has ${a.shape.length} and b ${b.shape.length}`);
    const ka = a.shape.slice(a.shape.length - k);
    const kb = b.shape.slice(0, k);
    if (ka.some((n, d) => n !== kb[d])) return ctx.fail('inputs.b', `shape-mismatch for sum: (${ka.join(', ')}) vs (${kb.join(', ')})`);
    const outA = a.shape.slice(0, a.shape.length - k);
    const outB = b.shape.slice(k);
    const m = sizeOf(outA);
    const kk = sizeOf(ka);
    const n = sizeOf(outB);
    const rows = (x: LazyArray) => Math.max(1, x.chunks[0]?.[0] ?? 1);
    const a2 = reshapeArray(a, [m, kk], [rows(a), normalizeChunks([kk], [kk])[0][0] || 1], prefixed(ctx, 'a-'));
    const b2 = reshapeArray(b, [kk, n], [kk || 1, n || 1], prefixed(ctx, 'b-'));
    const matmul = LINALG_ARRAY_OPS.find((o) => o.spec.op === 'matmul')!;
    const prod = matmul.build({ ...prefixed(ctx, 'mm-'), inputs: { a: a2, b: b2 } }) as Record<string, LazyArray>;
    const shape = [...outA, ...outB];
    return { out: reshapeArray(prod.out, shape, shape.map((s, d) => (d === 0 ? Math.max(1, Math.min(s, rows(a))) : Math.max(1, s))), prefixed(ctx, 'out-')) };
  },
};

export const STATS_ARRAY_OPS: OpDef[] = [histogram, percentileOp('percentile'), percentileOp('quantile'), median, topk, tensordot];
