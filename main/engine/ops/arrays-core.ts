/**
 * The core array nodes: seeded random arrays, elementwise ops with a scalar, slicing, and
 * reductions. Enough for the seed benchmark, x = normal(10, 1, (N, N)); (x + 1)[::2, ::2].sum().
 */
import type { BinaryOp, DType, Expr, ReduceOp } from '../../../common/arrays';
import { COMPARE_OPS } from '../../../common/arrays';
import { isCompareOp, promoteWithScalar, reduceResultType, scalarKind, scalarOperand, scalarResultType } from '../../../common/dtype-rules';
import type { NodeKindSpec } from '../../../common/catalog';
import { blockOffset, normalizeChunks, NO_DEPS, sharedBlockShapes, unitStep } from '../compile/chunks';
import { fitsFusion } from '../compile/fuse-bound';
import { fromKeys, mapBlocks, materialize, reduceAllSteps, reduceAxisSteps, settle, sliceArray } from '../compile/array-lower';
import type { BuildContext, LazyArray, OpDef } from './types';
import { normalizeIndex, parseSliceText } from './slice-syntax';
import { normalizeAxes, reduceAxesSteps } from '../compile/reduce-axes';
import { alignedBinary } from '../compile/broadcast';
import { hasUnknown, UNKNOWN, unknownRefusal } from '../compile/unknown-sizes';
import { reduceUnknownSteps } from '../compile/reduce-unknown';
import type { Steps } from '../slices';

/**
 * The array on `port`. One of unknown length (a boolean-mask selection, compile/unknown-sizes.ts)
 * is refused unless the op says it takes one (`unknownSizes`).
 */
export function arrayInput(ctx: BuildContext, port: string, opts: { unknownSizes?: boolean } = {}): LazyArray {
  const v = ctx.inputs[port];
  if (!v) return ctx.fail(`inputs.${port}`, 'not connected');
  // A reduction's scalar is a 0-d array to whatever consumes it.
  if (v.kind === 'scalar') return fromKeys([], [], v.dtype, [v.key], ctx.nodeId, [ctx.nodeId]);
  if (v.kind !== 'array') return ctx.fail(`inputs.${port}`, `expects an array, got ${v.portType}`);
  const unknown = opts.unknownSizes ? null : unknownRefusal(v.shape);
  if (unknown) return ctx.fail(`inputs.${port}`, unknown);
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

/** The axis param of `x` (negative counts from the end) made positive, or null when not given. */
export function axisOf(ctx: BuildContext, x: LazyArray): number | null {
  const a = ctx.params.axis;
  if (a === undefined || a === null) return null;
  const nd = x.shape.length;
  if (typeof a !== 'number' || !Number.isInteger(a) || a < -nd || a >= nd) return ctx.fail('params.axis', `axis ${String(a)} is out of bounds for the ${nd}-d input`);
  return a < 0 ? a + nd : a;
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
      // What every block shares (shapes, unit steps, no deps) is one frozen object, not a copy per block.
      const shapeOf = sharedBlockShapes(chunks);
      const step = unitStep(shape.length);
      const arr: LazyArray = {
        kind: 'array',
        shape,
        chunks,
        dtype,
        opName: dist,
        nodes: [ctx.nodeId],
        block(idx) {
          const region = { start: blockOffset(chunks, idx), step, count: shapeOf(idx) };
          return { expr: { kind: 'leaf', leaf: { kind: 'random', dist, seed, a, b, shape, region } }, deps: NO_DEPS };
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
    doc: 'Elementwise op of an array with a number: x + v, x − v, x × v, x ÷ v, x ** v, min(x, v), max(x, v), or a comparison (x > v ...: bool). Result dtype as NumPy 2 (NEP 50): an int array with a float value, or ÷, gives float64; float32 stays float32; a bool array with an int value int64. Fused into its neighbours.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [
      { name: 'op', kind: 'enum', options: SCALAR_OPS, default: 'add' },
      { name: 'value', kind: 'number', required: true },
      { name: 'reverse', kind: 'boolean', default: false, doc: 'compute v ∘ x instead of x ∘ v' },
      { name: 'value_kind', kind: 'enum', options: ['int', 'float'], doc: 'the Python type of value for NumPy 2 promotion (NEP 50): "float" makes x * 2.0 of an int array float64; empty: a whole number is an int' },
    ],
  },
  build(ctx) {
    const op = (ctx.params.op ?? 'add') as BinaryOp;
    const value = num(ctx, 'value');
    const reverse = ctx.params.reverse === true;
    const x0 = arrayInput(ctx, 'x', { unknownSizes: true });
    // NEP 50: the number is a weak Python scalar; x / 2 of an int32 x is float64, x + 2 int32.
    const kind = scalarKind(value, ctx.params.value_kind);
    if (kind === 'int' && !Number.isInteger(value)) ctx.fail('params.value', `${value} is not an integer, but value_kind is 'int'`);
    const dtype = scalarResultType(x0.dtype, kind, op);
    // bool with a Python scalar is never refused (True - 1 is int64); only bool with bool is.
    if (!isCompareOp(op) && kind === 'int') checkIntScalar(ctx, dtype, value, op, reverse);
    const x = settle(x0, dtype, ctx, 'src');
    const fill = { kind: 'leaf' as const, leaf: { kind: 'fill' as const, value: scalarOperand(value, promoteWithScalar(x0.dtype, kind)) } };
    return { out: mapBlocks(x, (e) => (reverse ? { kind: 'binary', op, a: fill, b: e } : { kind: 'binary', op, a: e, b: fill }), op, ctx.nodeId, dtype) };
  },
};

/** What NumPy 2 refuses of a Python int with an integer array: one out of the dtype's range, a negative power. */
function checkIntScalar(ctx: BuildContext, dtype: DType, value: number, op: BinaryOp, reverse: boolean): void {
  if (dtype === 'int32' && (value < -(2 ** 31) || value > 2 ** 31 - 1)) ctx.fail('params.value', `Python integer ${value} is out of bounds for int32 (NumPy 2 raises OverflowError); astype the array to int64 or float64 first`);
  if (dtype === 'int64' && !Number.isSafeInteger(value)) ctx.fail('params.value', `${value} is beyond 2**53, where a JSON number is no longer an exact integer`);
  if (op === 'pow' && !reverse && value < 0 && (dtype === 'int32' || dtype === 'int64')) ctx.fail('params.value', 'integers to negative integer powers are not allowed (NumPy); give value_kind "float" for a float result');
}

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

const REDUCE_OPS: ReduceOp[] = ['sum', 'mean', 'min', 'max', 'var', 'std', 'argmin', 'argmax', 'prod', 'nanprod', 'nanmin', 'nanmax', 'nanmean'];
/** Reductions that, as NumPy's, have no identity: an empty reduced axis is refused. */
const NO_IDENTITY = ['min', 'max', 'argmin', 'argmax', 'nanmin', 'nanmax'];
/** Truth reductions, composed: any is the max of x != 0, all the min (NaN counts as true, as NumPy's). */
const TRUTH_OPS = { any: 'max', all: 'min' } as const;
type TruthOp = keyof typeof TRUTH_OPS;

/**
 * `x` with NaN replaced by `value` (nansum's 0, nancumprod's 1), fused into each block's program;
 * integers have no NaN and are returned as they are (keeping their exact int64 sums).
 */
export function nanAs(x: LazyArray, value: number, ctx: BuildContext): LazyArray {
  if (x.dtype === 'int32' || x.dtype === 'int64' || x.dtype === 'bool') return x;
  const fill = { kind: 'leaf' as const, leaf: { kind: 'fill' as const, value } };
  return mapBlocks(x, (e) => ({ kind: 'where', cond: { kind: 'unary', op: 'isnan', arg: e }, a: fill, b: e }), `nan-as-${value}`, ctx.nodeId);
}

export const ZERO: Expr = { kind: 'leaf', leaf: { kind: 'fill', value: 0 } };
/** `e != 0`: NumPy's truth of a value (NaN is True), 1 / 0. */
export const truthOf = (e: Expr): Expr => ({ kind: 'binary', op: 'ne', a: e, b: ZERO });

/** `x != 0` as a bool array, the operand of any / all. */
function nonzero(x0: LazyArray, ctx: BuildContext): LazyArray {
  if (x0.dtype === 'bool') return x0;
  return mapBlocks(settle(x0, 'bool', ctx, 'src'), truthOf, 'ne', ctx.nodeId, 'bool');
}

/**
 * numpy.nanmean over several axes but not all: its {sum, count} partials do not compose one axis
 * at a time (a mean of means weighs lanes wrongly), so it is nansum over the axes divided by the
 * count of non-NaN values over them (the sum of x == x), two axis-by-axis reductions.
 */
function* nanmeanOver(x: LazyArray, axes: number[], keepdims: boolean, splitEvery: number, ctx: BuildContext): Steps<LazyArray> {
  const sum = yield* reduceAxesSteps(nanAs(x, 0, ctx), 'sum', axes, keepdims, splitEvery, ctx, 0, 'nanmean-sum-');
  const notNan = mapBlocks(settle(x, 'int32', ctx, 'src'), (e) => ({ kind: 'binary', op: 'eq', a: e, b: e }), 'not-nan', ctx.nodeId, 'int32');
  const count = yield* reduceAxesSteps(notNan, 'sum', axes, keepdims, splitEvery, ctx, 0, 'nanmean-count-');
  if (sum.kind !== 'array' || count.kind !== 'array') throw new Error('nanmean over some axes reduced all of them');
  return alignedBinary(sum, count, 'div', reduceResultType(x.dtype, 'nanmean'), ctx, 'x');
}

/** any / all along `ax` of which one is empty: NumPy's False / True everywhere, a bool fill (no task). */
function truthOfEmpty(x: LazyArray, ax: number[], keepdims: boolean, all: boolean, ctx: BuildContext): LazyArray {
  const kept = (d: number) => !ax.includes(d);
  const shape = x.shape.flatMap((n, d) => (kept(d) ? [n] : keepdims ? [1] : []));
  const chunks = x.chunks.flatMap((c, d) => (kept(d) ? [c] : keepdims ? [[1]] : []));
  return { kind: 'array', shape, chunks, dtype: 'bool', opName: all ? 'all' : 'any', nodes: [ctx.nodeId], block: () => ({ expr: { kind: 'leaf', leaf: { kind: 'fill', value: all ? 1 : 0 } }, deps: NO_DEPS }) };
}

const reduce: OpDef = {
  spec: {
    op: 'reduce',
    label: 'Reduce',
    category: 'arrays',
    doc: 'sum, prod, mean, min, max, var, std, argmin, argmax, any or all (bool), or the NaN-skipping nansum, nanprod, nanmean, nanmin, nanmax (an all-NaN slice gives NaN) over all elements, one axis or several (axes), optionally keeping the reduced axes (keepdims), as tree reductions.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [
      { name: 'op', kind: 'enum', options: [...REDUCE_OPS, 'any', 'all', 'nansum'], default: 'sum' },
      { name: 'axis', kind: 'number', integer: true, doc: 'leave empty (and axes empty) to reduce over all elements; negative counts from the end' },
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
    const x0 = arrayInput(ctx, 'x', { unknownSizes: true });
    const named = (ctx.params.op ?? 'sum') as ReduceOp | TruthOp | 'nansum';
    const truth = named === 'any' || named === 'all' ? TRUTH_OPS[named] : null;
    const op: ReduceOp = named === 'any' || named === 'all' ? TRUTH_OPS[named] : named === 'nansum' ? 'sum' : named;
    const x = truth ? nonzero(x0, ctx) : named === 'nansum' ? nanAs(x0, 0, ctx) : x0;
    const splitEvery = (ctx.params.split_every ?? 8) as number;
    const ddof = (ctx.params.ddof ?? 0) as number;
    const axis = ctx.params.axis;
    const axesParam = ctx.params.axes;
    const keepdims = ctx.params.keepdims === true;
    if (axis !== undefined && axis !== null && axesParam !== undefined && axesParam !== null) return ctx.fail('params.axes', 'give axis or axes, not both');
    let axes: number[] | null = null;
    if (axis !== undefined && axis !== null) {
      const nd = x.shape.length;
      if (typeof axis !== 'number' || axis < -nd || axis >= nd) return ctx.fail('params.axis', `axis ${String(axis)} is out of bounds for the ${nd}-d input`);
      // NumPy's negative axis counts from the end; as its positive twin it keeps that form's task graph.
      axes = [axis < 0 ? axis + nd : axis];
    } else if (axesParam !== undefined && axesParam !== null) axes = nums(ctx, 'axes');
    try {
      const ax = normalizeAxes(axes, x.shape.length);
      if (truth && ax.some((a) => x.shape[a] === 0)) {
        // NumPy gives False / True: along some axes a constant array (no task); over all of them a scalar has no task to carry it yet.
        if (ax.length < x.shape.length || keepdims) return { out: truthOfEmpty(x, ax, keepdims, named === 'all', ctx) };
        throw new Error(`${named} over all axes of an empty array is not supported yet (NumPy gives ${named === 'any' ? 'False' : 'True'}); the input has shape (${x.shape.join(', ')}); give keepdims or reduce along an axis`);
      }
      // NumPy: "zero-size array to reduction operation maximum which has no identity".
      if (NO_IDENTITY.includes(op) && ax.some((a) => x.shape[a] === 0)) throw new Error(`${named} of an empty axis has no identity (NumPy raises ValueError); the input has shape (${x.shape.join(', ')})`);
      if ((op === 'argmin' || op === 'argmax') && ax.length > 1 && ax.length < x.shape.length) throw new Error(`${op} takes a single axis, got (${ax.join(', ')})`);
    } catch (e) {
      return ctx.fail('params.axes', e instanceof Error ? e.message : String(e));
    }
    if (hasUnknown(x.shape)) {
      // Over all its axes (a 1-D selection's one axis) the partials carry their own counts; arg*
      // would need each block's offset, keepdims known sizes (Dask: NaN).
      if (op === 'argmin' || op === 'argmax' || keepdims) return ctx.fail('inputs.x', `${unknownRefusal(x.shape)} (${named}${keepdims ? ' with keepdims' : ''})`);
      const ax = normalizeAxes(axes, x.shape.length);
      if (ax.length === x.shape.length) return { out: yield* reduceUnknownSteps(x, named, op, truth !== null, splitEvery, ctx, ddof) };
      // One axis of an axis selection (x[:, m].sum(axis=0) or axis=1): each block's partial is
      // sized when it runs. Along the unknown axis only ops with an identity: a min, max, any or
      // all there of a selection that turns out empty has no task to fail as NumPy raises.
      const alongUnknown = ax.length === 1 && x.shape[ax[0]] === UNKNOWN;
      if (ax.length > 1 || (alongUnknown && (truth !== null || NO_IDENTITY.includes(op)))) {
        return ctx.fail('inputs.x', `${unknownRefusal(x.shape)} (${named} along axes (${ax.join(', ')}) of a ${x.shape.length}-d array: reduce over all axes, or along one axis${alongUnknown ? ' the mask did not select' : ''})`);
      }
      return { out: yield* reduceAxisSteps(x, op, ax[0], splitEvery, ctx, ddof) };
    }
    if (op === 'nanmean' && Array.isArray(axes) && axes.length > 1 && normalizeAxes(axes, x.shape.length).length < x.shape.length) return { out: yield* nanmeanOver(x, axes, keepdims, splitEvery, ctx) };
    // The historical forms keep their task graphs (and so their digests): all axes, one axis.
    if (!keepdims && axes === null) return { out: yield* reduceAllSteps(x, op, splitEvery, ctx, ddof) };
    if (!keepdims && axes !== null && axes.length === 1 && axes[0] >= 0) return { out: yield* reduceAxisSteps(x, op, axes[0], splitEvery, ctx, ddof) };
    return { out: yield* reduceAxesSteps(x, op, axes, keepdims, splitEvery, ctx, ddof) };
  },
};

export const CORE_ARRAY_OPS: OpDef[] = [randomOp('normal'), randomOp('uniform'), scalarOp, slice, reduce];
