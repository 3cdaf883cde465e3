/**
 * Shape nodes: concatenate and stack (lazy: an output block is one input's block, so they fuse),
 * and reshape (C order, as numpy.reshape; each output block gathers the elements of the input
 * blocks its flat range touches, one 'reshape' task, where dask.array rechunks first).
 */
import { arrayOpSpec } from '../../../common/array-op-params';
import type { DType } from '../../../common/arrays';
import { bytesPerElement, sizeOf, stridesOf } from '../../../common/arrays';
import { fromKeys, materialize, settle, viewAxes } from '../compile/array-lower';
import { blockIndices, blockOffset, blockShape, gridShape, normalizeChunks } from '../compile/chunks';
import { rechunk, sameChunks } from '../compile/rechunk';
import { arrayInput, nums } from './arrays-core';
import { resultTypeOf } from '../../../common/dtype-rules';
import type { BuildContext, LazyArray, OpDef } from './types';

const PORTS = ['x0', 'x1', 'x2', 'x3', 'x4', 'x5'];
const joinInputs = PORTS.map((name, i) => ({ name, type: 'array' as const, ...(i >= 2 ? { optional: true } : {}) }));

function connected(ctx: BuildContext): LazyArray[] {
  return PORTS.filter((p) => ctx.inputs[p]).map((p) => arrayInput(ctx, p));
}

/** Joins `xs` along `axis`: their other axes must agree (chunks follow the first input's). */
export function concatArrays(xs: LazyArray[], axis: number, ctx: BuildContext): LazyArray {
  const nd = xs[0].shape.length;
  xs.forEach((x, i) => {
    if (x.shape.length !== nd) ctx.fail(`inputs.${PORTS[i]}`, `has ${x.shape.length} dimensions, ${PORTS[0]} has ${nd}`);
    x.shape.forEach((n, d) => {
      if (d !== axis && n !== xs[0].shape[d]) ctx.fail(`inputs.${PORTS[i]}`, `shape (${x.shape.join(', ')}) does not match (${xs[0].shape.join(', ')}) except on axis ${axis}`);
    });
  });
  const dtype = resultTypeOf(xs.map((x) => x.dtype));
  const parts = xs.map((x, i) => {
    const s = settle(x, dtype, ctx, `in${i}`);
    const want = s.chunks.map((c, d) => (d === axis ? c : xs[0].chunks[d]));
    return sameChunks(s.chunks, want) ? s : rechunk(s, want, ctx, `align${i}`);
  });
  // Along the axis: every non-empty block of every input, in order.
  const along: Array<{ part: number; block: number; size: number }> = [];
  parts.forEach((p, j) => p.chunks[axis].forEach((size, b) => size > 0 && along.push({ part: j, block: b, size })));
  if (along.length === 0) along.push({ part: 0, block: 0, size: 0 });
  const chunks = xs[0].chunks.map((c, d) => (d === axis ? along.map((a) => a.size) : c));
  return {
    kind: 'array',
    shape: xs[0].shape.map((n, d) => (d === axis ? xs.reduce((s, x) => s + x.shape[axis], 0) : n)),
    chunks,
    dtype,
    opName: `${parts[0].opName}+concatenate`,
    nodes: [...parts.flatMap((p) => p.nodes), ctx.nodeId],
    block(idx) {
      const a = along[idx[axis]];
      return parts[a.part].block(idx.map((i, d) => (d === axis ? a.block : i)));
    },
  };
}

function axisParam(ctx: BuildContext, ndim: number): number {
  const a = (ctx.params.axis ?? 0) as number;
  if (!Number.isInteger(a) || a < -ndim || a >= ndim) return ctx.fail('params.axis', `axis ${a} is out of bounds for ${ndim} dimensions`);
  return a < 0 ? a + ndim : a;
}

const concatenate: OpDef = {
  spec: {
    op: 'concatenate',
    label: 'Concatenate',
    category: 'arrays',
    doc: 'Joins 2 to 6 arrays along an existing axis (numpy.concatenate); the other axes must match.',
    inputs: joinInputs,
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'axis', kind: 'number', integer: true, default: 0 }],
  },
  build(ctx) {
    const xs = connected(ctx);
    if (xs[0].shape.length === 0) return ctx.fail('inputs.x0', 'zero-dimensional arrays cannot be concatenated');
    return { out: concatArrays(xs, axisParam(ctx, xs[0].shape.length), ctx) };
  },
};

const stack: OpDef = {
  spec: {
    op: 'stack',
    label: 'Stack',
    category: 'arrays',
    doc: 'Joins 2 to 6 arrays of one shape along a new axis (numpy.stack).',
    inputs: joinInputs,
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'axis', kind: 'number', integer: true, default: 0 }],
  },
  build(ctx) {
    const xs = connected(ctx);
    const nd = xs[0].shape.length;
    xs.forEach((x, i) => {
      if (x.shape.length !== nd || x.shape.some((n, d) => n !== xs[0].shape[d])) ctx.fail(`inputs.${PORTS[i]}`, `all input arrays must have the same shape: (${x.shape.join(', ')}) vs (${xs[0].shape.join(', ')})`);
    });
    const axis = axisParam(ctx, nd + 1);
    const layout = [...Array(nd + 1).keys()].map((o) => (o < axis ? o : o === axis ? -1 : o - 1));
    return { out: concatArrays(xs.map((x) => viewAxes(x, layout)), axis, ctx) };
  },
};

/** numpy.reshape's shape with at most one -1. */
export function reshapeTarget(from: number[], to: number[]): number[] {
  const n = sizeOf(from);
  const unknown = to.filter((d) => d === -1).length;
  if (unknown > 1) throw new Error('can only specify one unknown dimension');
  if (to.some((d) => !Number.isInteger(d) || d < -1)) throw new Error(`invalid shape (${to.join(', ')})`);
  const known = sizeOf(to.filter((d) => d !== -1));
  const out = to.map((d) => (d === -1 ? (known === 0 ? 0 : n / known) : d));
  if (sizeOf(out) !== n || out.some((d) => !Number.isInteger(d))) throw new Error(`cannot reshape array of size ${n} into shape (${to.join(', ')})`);
  return out;
}

const reshape: OpDef = {
  spec: {
    op: 'reshape',
    label: 'Reshape',
    category: 'arrays',
    doc: 'Gives the array a new shape with the same elements in C order (numpy.reshape; one axis may be -1).',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [
      { name: 'shape', kind: 'numbers', integer: true, min: -1, required: true },
      { name: 'chunks', kind: 'numbers', integer: true, exclusiveMin: 0, doc: 'output chunk size per axis (default: the input first axis chunk on axis 0, whole elsewhere)' },
    ],
  },
  build(ctx) {
    const input = arrayInput(ctx, 'x');
    let shape: number[];
    try {
      shape = reshapeTarget(input.shape, nums(ctx, 'shape'));
    } catch (e) {
      return ctx.fail('params.shape', e instanceof Error ? e.message : String(e));
    }
    const c = ctx.params.chunks === undefined ? null : nums(ctx, 'chunks');
    if (c && c.length !== shape.length) return ctx.fail('params.chunks', `has ${c.length} entries but the shape has ${shape.length}`);
    return { out: reshapeArray(input, shape, c, ctx) };
  },
};

/** `input` in a new shape (checked by reshapeTarget), C order; `c`: output chunk sizes or null. */
export function reshapeArray(input: LazyArray, shape: number[], c: number[] | null, ctx: BuildContext): LazyArray {
    const same = shape.length === input.shape.length && shape.every((n, d) => n === input.shape[d]);
    if (same) return input;
    const x = materialize(input, ctx, 'src');
    const chunks = normalizeChunks(shape, c ?? shape.map((n, d) => (d === 0 ? Math.max(1, x.chunks[0]?.[0] ?? n) : n)));
    const inGrid = gridShape(x.chunks);
    const inStrides = stridesOf(x.shape);
    const outStrides = stridesOf(shape);
    const inBlockOf = x.chunks.map((cs) => {
      const of: number[] = [];
      cs.forEach((n, b) => {
        for (let k = 0; k < n; k++) of.push(b);
      });
      return of;
    });
    const keys: string[] = [];
    for (const idx of blockIndices(chunks)) {
      const bs = blockShape(chunks, idx);
      const start = blockOffset(chunks, idx);
      const deps: string[] = [];
      const depBlocks: number[][] = [];
      if (sizeOf(bs) > 0) {
        // The block's flat range [lo, hi] in C order, and the input blocks it can touch: every
        // block between those of lo and hi on the first input axis where they differ.
        const lo = start.reduce((s, v, d) => s + v * outStrides[d], 0);
        const hi = start.reduce((s, v, d) => s + (v + bs[d] - 1) * outStrides[d], 0);
        const at = (flat: number) => inStrides.map((st, d) => Math.floor(flat / st) % x.shape[d]);
        const a = at(lo);
        const b = at(hi);
        let split = 0;
        while (split < a.length - 1 && a[split] === b[split]) split++;
        const ranges = inGrid.map((g, d) => (d < split ? [inBlockOf[d][a[d]], inBlockOf[d][a[d]]] : d === split ? [inBlockOf[d][a[d]], inBlockOf[d][b[d]]] : [0, g - 1]));
        for (const bi of blockIndices(ranges.map(([p, q]) => Array<number>(q - p + 1).fill(1)))) {
          const src = bi.map((k, d) => ranges[d][0] + k);
          depBlocks.push(src);
          deps.push(x.block(src).deps[0]);
        }
      }
      const key = ctx.key('reshape', idx);
      const bytes = sizeOf(bs) * bytesPerElement(x.dtype);
      const params = { inShape: x.shape, inChunks: x.chunks, depBlocks, outShape: shape, start, shape: bs, dtype: x.dtype as DType };
      ctx.emit({ key, deps, spec: arrayOpSpec('reshape', params), resource: 'any', op: 'reshape', outBytes: bytes, workBytes: 2 * bytes });
      keys.push(key);
    }
    return fromKeys(shape, chunks, x.dtype, keys, ctx.nodeId, [ctx.nodeId]);
}

export const JOIN_ARRAY_OPS: OpDef[] = [concatenate, stack, reshape];
