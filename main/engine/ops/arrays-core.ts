/**
 * The core array nodes: seeded random arrays, elementwise ops with a scalar, slicing, and
 * reductions. Enough for the seed benchmark, x = normal(10, 1, (N, N)); (x + 1)[::2, ::2].sum().
 */
import type { BinaryOp, DType, ReduceOp } from '../../../common/arrays';
import { COMPARE_OPS } from '../../../common/arrays';
import type { NodeKindSpec } from '../../../common/catalog';
import { fullRegion, normalizeChunks } from '../compile/chunks';
import { fitsFusion } from '../compile/fuse-bound';
import { fromKeys, mapBlocks, materialize, reduceAllSteps, reduceAxisSteps, settle, sliceArray } from '../compile/array-lower';
import type { BuildContext, LazyArray, OpDef } from './types';
import { normalizeIndex, parseSliceText } from './slice-syntax';
import { normalizeAxes, reduceAxesSteps } from '../compile/reduce-axes';

export function arrayInput(ctx: BuildContext, port: string): LazyArray {
  const v = ctx.inputs[port];
  if (!v) return ctx.fail(`inputs.${port}`, 'not connected');
  // A reduction's scalar is a 0-d array to whatever consumes it.
  if (v.kind === 'scalar') return fromKeys([], [], v.dtype, [v.key], ctx.nodeId, [ctx.nodeId]);
  if (v.kind !== 'array') return ctx.fail(`inputs.${port}`, `expects an array, got ${v.portType}`);
  // Every array op reads its inputs here, so this is the one place fusion is bounded (fuse-bound.ts).
  if (fitsFusion(v.block(v.chunks.map(() => 0)).expr)) return v;
  // Materialised once per value: a second port or consumer reading it (a + a) reads those tasks.
  let m = settled.get(v);
  if (!m) settled.set(v, (m = materialize(v, ctx, `fused-${port}`)));
  return m;
}

/** Values too deep to fuse into, and the tasks-backed array each became (arrayInput). */
const settled = new WeakMap<LazyArray, LazyArray>();

export function num(ctx: BuildContext, name: string): number {
  const v = ctx.params[name];
  if (typeof v !== 'number') return ctx.fail(`params.${name}`, 'must be a number');
  return v;
}

export function nums(ctx: BuildContext, name: string): number[] {
  const v = ctx.params[name];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'number')) return ctx.fail(`params.${name}`, 'must be a list of numbers');
  return v as number[];
}

/**
 * The chunks param as one size per axis, as Dask reads it: a single number (`500` or `[500]`)
 * stands for every axis; a list otherwise names each axis (`axes`: what the count is checked against).
 */
export function chunkSizes(ctx: BuildContext, ndim: number, axes: string): number[] {
  const v = ctx.params.chunks;
  const c = typeof v === 'number' ? [v] : nums(ctx, 'chunks');
  const per = c.length === 1 ? Array.from({ length: ndim }, () => c[0]) : c;
  if (per.length !== ndim) ctx.fail('params.chunks', `has ${c.length} entries but ${axes} has ${ndim} axes`);
  return per;
}

/** Shape and chunk params shared by every generator node. */
export function shapeAndChunks(ctx: BuildContext): { shape: number[]; chunks: number[][] } {
  const shape = nums(ctx, 'shape');
  const c = chunkSizes(ctx, shape.length, 'shape');
  c.forEach((x, d) => {
    if (!Number.isInteger(x) || x <= 0) ctx.fail('params.chunks', `must be positive integers (axis ${d} is ${x})`);
  });
  shape.forEach((x, d) => {
    if (!Number.isInteger(x) || x < 0) ctx.fail('params.shape', `must be non-negative integers (axis ${d} is ${x})`);
  });
  try {
    return { shape, chunks: normalizeChunks(shape, c) };
  } catch (e) {
    return ctx.fail('params.chunks', e instanceof Error ? e.message : String(e));
  }
}

const shapeParams: NodeKindSpec['params'] = [
  { name: 'shape', kind: 'numbers', integer: true, min: 0, minLength: 1, required: true, doc: 'array shape, e.g. [10000, 10000]' },
  { name: 'chunks', kind: 'numbers', integer: true, exclusiveMin: 0, minLength: 1, required: true, doc: 'chunk size per axis' },
  { name: 'dtype', kind: 'enum', options: ['float64', 'float32'], default: 'float64' },
];

function randomOp(dist: 'normal' | 'uniform'): OpDef {
  const [pa, pb] = dist === 'normal' ? ['mean', 'std'] : ['low', 'high'];
  return {
    spec: {
      op: `random_${dist}`,
      label: dist === 'normal' ? 'Random normal' : 'Random uniform',
      category: 'arrays',
      doc: `Seeded ${dist} random array (Philox4x32-10, identical for any chunking and backend; docs/random.md).`,
      inputs: [],
      outputs: [{ name: 'out', type: 'array' }],
      params: [
        ...shapeParams,
        { name: pa, kind: 'number', default: dist === 'normal' ? 0 : 0 },
        { name: pb, kind: 'number', default: 1, ...(dist === 'normal' ? { min: 0 } : {}) },
        { name: 'seed', kind: 'number', integer: true, min: 0, max: Number.MAX_SAFE_INTEGER, default: 0 },
      ],
    },
    build(ctx) {
      const { shape, chunks } = shapeAndChunks(ctx);
      const a = num(ctx, pa);
      const b = num(ctx, pb);
      if (dist === 'uniform' && !(b > a)) ctx.fail('params.high', `must be greater than low (${a})`);
      const seed = num(ctx, 'seed');
      const dtype = (ctx.params.dtype ?? 'float64') as DType;
      let offsets: number[][] | null = null;
      const arr: LazyArray = {
        kind: 'array',
        shape,
        chunks,
        dtype,
        opName: dist,
        nodes: [ctx.nodeId],
        block(idx) {
          offsets ??= chunks.map((cs) => cs.reduce<number[]>((acc, c, i) => (acc.push(i === 0 ? 0 : acc[i - 1] + cs[i - 1]), acc), []));
          const region = fullRegion(idx.map((i, d) => chunks[d][i]));
          region.start = idx.map((i, d) => offsets![d][i]);
          return { expr: { kind: 'leaf', leaf: { kind: 'random', dist, seed, a, b, shape, region } }, deps: [] };
        },
      };
      return { out: arr };
    },
  };
}

const SCALAR_OPS: BinaryOp[] = ['add', 'sub', 'mul', 'div', 'pow', 'min', 'max', ...COMPARE_OPS];

const scalarOp: OpDef = {
  spec: {
    op: 'scalar_op',
    label: 'Array ∘ scalar',
    category: 'arrays',
    doc: 'Elementwise op of an array with a number: x + v, x − v, x × v, x ÷ v, x ** v, min(x, v), max(x, v), or a comparison (x > v ...: 1 / 0, int32). Fused into its neighbours.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [
      { name: 'op', kind: 'enum', options: SCALAR_OPS, default: 'add' },
      { name: 'value', kind: 'number', required: true },
      { name: 'reverse', kind: 'boolean', default: false, doc: 'compute v ∘ x instead of x ∘ v' },
    ],
  },
  build(ctx) {
    const op = (ctx.params.op ?? 'add') as BinaryOp;
    const compare = (COMPARE_OPS as string[]).includes(op);
    const x = compare ? settle(arrayInput(ctx, 'x'), 'int32', ctx, 'src') : arrayInput(ctx, 'x');
    const value = num(ctx, 'value');
    const reverse = ctx.params.reverse === true;
    const fill = { kind: 'leaf' as const, leaf: { kind: 'fill' as const, value } };
    const dtype = compare ? 'int32' : x.dtype;
    return { out: mapBlocks(x, (e) => (reverse ? { kind: 'binary', op, a: fill, b: e } : { kind: 'binary', op, a: e, b: fill }), op, ctx.nodeId, dtype) };
  },
};

const slice: OpDef = {
  spec: {
    op: 'slice',
    label: 'Slice',
    category: 'arrays',
    doc: 'NumPy basic indexing, e.g. "::2, ::2", "10:-10, 5", "::-1", "..., None": an integer drops its axis, None adds one, ... fills the rest. Pushed into the generator so only kept elements are made.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'slices', kind: 'string', required: true, doc: 'e.g. "::2, ::2", "::-1, 3", "None, ..."' }],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    const text = ctx.params.slices;
    if (typeof text !== 'string') return ctx.fail('params.slices', 'must be slice text such as "::2, ::2"');
    let sl;
    try {
      sl = normalizeIndex(parseSliceText(text), x.shape);
    } catch (e) {
      return ctx.fail('params.slices', e instanceof Error ? e.message : String(e));
    }
    return { out: sliceArray(x, sl, ctx.nodeId) };
  },
};

const REDUCE_OPS: ReduceOp[] = ['sum', 'mean', 'min', 'max', 'var', 'std', 'argmin', 'argmax'];

const reduce: OpDef = {
  spec: {
    op: 'reduce',
    label: 'Reduce',
    category: 'arrays',
    doc: 'sum, mean, min, max, var, std, argmin or argmax over all elements, one axis or several (axes), optionally keeping the reduced axes (keepdims), as tree reductions.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [
      { name: 'op', kind: 'enum', options: REDUCE_OPS, default: 'sum' },
      { name: 'axis', kind: 'number', integer: true, min: 0, doc: 'leave empty (and axes empty) to reduce over all elements' },
      { name: 'axes', kind: 'numbers', integer: true, doc: 'several axes, e.g. [0, 2] (negative count from the end); instead of axis' },
      { name: 'keepdims', kind: 'boolean', default: false, doc: 'keep the reduced axes with length 1' },
      { name: 'split_every', kind: 'number', integer: true, min: 2, default: 8, doc: 'fan-in of the combine tree' },
      { name: 'ddof', kind: 'number', integer: true, min: 0, default: 0, doc: 'delta degrees of freedom (var, std)' },
    ],
  },
  // One chunk task per input block; over all axes, a combine tree of fan-in split_every on top.
  minTasks(ctx) {
    const x = ctx.inputs.x;
    if (x?.kind !== 'array') return 0;
    const blocks = x.chunks.reduce((n, c) => n * c.length, 1);
    const whole = ctx.params.axis === undefined && ctx.params.axes === undefined && ctx.params.keepdims !== true;
    const s = typeof ctx.params.split_every === 'number' && ctx.params.split_every >= 2 ? ctx.params.split_every : 8;
    return whole ? blocks + Math.ceil((blocks - 1) / (s - 1)) : blocks;
  },
  // A generator: a reduction over a big grid emits a task per block (main/engine/slices.ts).
  *build(ctx) {
    const x = arrayInput(ctx, 'x');
    const op = (ctx.params.op ?? 'sum') as ReduceOp;
    const splitEvery = (ctx.params.split_every ?? 8) as number;
    const ddof = (ctx.params.ddof ?? 0) as number;
    const axis = ctx.params.axis;
    const axesParam = ctx.params.axes;
    const keepdims = ctx.params.keepdims === true;
    if (axis !== undefined && axis !== null && axesParam !== undefined && axesParam !== null) return ctx.fail('params.axes', 'give axis or axes, not both');
    let axes: number[] | null = null;
    if (axis !== undefined && axis !== null) {
      if (typeof axis !== 'number' || axis >= x.shape.length) return ctx.fail('params.axis', `must be an axis of the ${x.shape.length}-d input`);
      axes = [axis];
    } else if (axesParam !== undefined && axesParam !== null) axes = nums(ctx, 'axes');
    try {
      const ax = normalizeAxes(axes, x.shape.length);
      if ((op === 'argmin' || op === 'argmax') && ax.length > 1 && ax.length < x.shape.length) throw new Error(`${op} takes a single axis, got (${ax.join(', ')})`);
    } catch (e) {
      return ctx.fail('params.axes', e instanceof Error ? e.message : String(e));
    }
    // The historical forms keep their task graphs (and so their digests): all axes, one axis.
    if (!keepdims && axes === null) return { out: yield* reduceAllSteps(x, op, splitEvery, ctx, ddof) };
    if (!keepdims && axes !== null && axes.length === 1 && axes[0] >= 0) return { out: yield* reduceAxisSteps(x, op, axes[0], splitEvery, ctx, ddof) };
    return { out: yield* reduceAxesSteps(x, op, axes, keepdims, splitEvery, ctx, ddof) };
  },
};

export const CORE_ARRAY_OPS: OpDef[] = [randomOp('normal'), randomOp('uniform'), scalarOp, slice, reduce];
