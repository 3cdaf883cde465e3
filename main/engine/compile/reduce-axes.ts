/**
 * Reductions over any set of axes, with NumPy's `keepdims`, built from the two reductions the
 * programs have (all axes, one axis; array-lower.ts):
 *
 * - all axes: one tree reduction; one axis: a tree per line of blocks;
 * - several axes (not all): sum, min and max reduce one axis after the other (the last first, so
 *   the others keep their numbers); mean is that sum divided by the number of elements reduced;
 *   var and std take NumPy's two passes, mean(x) with keepdims, then sum((x - mean)^2) / (n - ddof),
 *   so they are as accurate as NumPy's and need no new partial. arg* take one axis (NumPy too).
 * - keepdims puts the reduced axes back with length 1 (viewAxes: no task).
 *
 * Each step names its tasks with its own prefix, so reductions chained in one node never share a key.
 */
import type { ReduceOp } from '../../../common/arrays';
import { sizeOf } from '../../../common/arrays';
import { reduceResultType } from '../../../common/dtype-rules';
import type { BuildContext, LazyArray, LazyScalar } from '../ops/types';
import type { Steps } from '../slices';
import { fromKeys, mapBlocks, reduceAllSteps, reduceAxisSteps, viewAxes } from './array-lower';
import { align } from './broadcast';
import { shiftDeps } from './restrict';

/** `axes` as NumPy takes them (negative from the end), sorted and checked; null means all. */
export function normalizeAxes(axes: number[] | null, ndim: number): number[] {
  if (axes === null) return [...Array(ndim).keys()];
  const out = axes.map((a) => {
    if (!Number.isInteger(a) || a < -ndim || a >= ndim) throw new Error(`axis ${a} is out of bounds for an array of ${ndim} dimension${ndim === 1 ? '' : 's'}`);
    return a < 0 ? a + ndim : a;
  });
  if (new Set(out).size !== out.length) throw new Error(`repeated axis in (${axes.join(', ')})`);
  return out.sort((a, b) => a - b);
}

const prefixed = (ctx: BuildContext, prefix: string): BuildContext => (prefix ? { ...ctx, key: (name, idx) => ctx.key(`${prefix}${name}`, idx) } : ctx);

function scalarArray(s: LazyScalar, ctx: BuildContext): LazyArray {
  return fromKeys([], [], s.dtype, [s.key], ctx.nodeId, [ctx.nodeId]);
}

/** Puts the reduced `axes` back as length-1 axes of an array of `ndim` axes. */
function keepDims(r: LazyArray, axes: number[], ndim: number): LazyArray {
  const layout: number[] = [];
  let k = 0;
  for (let d = 0; d < ndim; d++) layout.push(axes.includes(d) ? -1 : k++);
  return viewAxes(r, layout);
}

/** sum / prod / min / max over `axes` (sorted, not all) one axis at a time, the last first. */
function* sequential(x: LazyArray, op: ReduceOp, axes: number[], splitEvery: number, ctx: BuildContext, prefix: string): Steps<LazyArray> {
  let cur = x;
  for (const a of [...axes].reverse()) cur = yield* reduceAxisSteps(cur, op, a, splitEvery, prefixed(ctx, `${prefix}ax${a}-`));
  return cur;
}

/**
 * Reduces `x` over `axes` (null: all). Returns a scalar for a reduction over all axes without
 * keepdims, else an array.
 */
export function* reduceAxesSteps(x: LazyArray, op: ReduceOp, axes: number[] | null, keepdims: boolean, splitEvery: number, ctx: BuildContext, ddof = 0, prefix = ''): Steps<LazyArray | LazyScalar> {
  const nd = x.shape.length;
  const ax = normalizeAxes(axes, nd);
  const all = ax.length === nd;
  if (all) {
    const s = yield* reduceAllSteps(x, op, splitEvery, prefixed(ctx, prefix), ddof);
    return keepdims ? keepDims(scalarArray(s, ctx), ax, nd) : s;
  }
  let r: LazyArray;
  if (ax.length === 1) r = yield* reduceAxisSteps(x, op, ax[0], splitEvery, prefixed(ctx, prefix), ddof);
  else if (op === 'argmin' || op === 'argmax') throw new Error(`${op} takes a single axis, got (${ax.join(', ')})`);
  else if (op === 'sum' || op === 'prod' || op === 'min' || op === 'max') r = yield* sequential(x, op, ax, splitEvery, ctx, prefix);
  else {
    const n = sizeOf(ax.map((a) => x.shape[a]));
    const fill = (value: number) => ({ kind: 'leaf' as const, leaf: { kind: 'fill' as const, value } });
    const sum = yield* sequential(x, 'sum', ax, splitEvery, ctx, `${prefix}mean-`);
    // An integer sum is int64; its mean is a float (true division), as NumPy's.
    const mean = mapBlocks(sum, (e) => ({ kind: 'binary', op: 'div', a: e, b: fill(n) }), 'div', ctx.nodeId, reduceResultType(x.dtype, 'mean'));
    if (op === 'mean') r = mean;
    else {
      // Two passes as NumPy: squared deviations from the mean, broadcast back over the reduced axes.
      const al = align([x, keepDims(mean, ax, nd)], ctx, 'x');
      const [a, m] = al.operands;
      const dev: LazyArray = {
        kind: 'array',
        shape: al.shape,
        chunks: al.chunks,
        dtype: 'float64',
        opName: `${x.opName}+dev`,
        nodes: x.nodes,
        block(idx) {
          const p = al.block(a, idx);
          const q = al.block(m, idx);
          const d = { kind: 'binary' as const, op: 'sub' as const, a: p.expr, b: shiftDeps(q.expr, p.deps.length) };
          return { expr: { kind: 'unary', op: 'square', arg: d }, deps: [...p.deps, ...q.deps] };
        },
      };
      const ss = yield* sequential(dev, 'sum', ax, splitEvery, ctx, `${prefix}var-`);
      const v = mapBlocks(ss, (e) => ({ kind: 'binary', op: 'div', a: e, b: fill(n - ddof) }), 'div', ctx.nodeId, reduceResultType(x.dtype, op));
      r = op === 'std' ? mapBlocks(v, (e) => ({ kind: 'unary', op: 'sqrt', arg: e }), 'sqrt', ctx.nodeId) : v;
    }
  }
  return keepdims ? keepDims(r, ax, nd) : r;
}
