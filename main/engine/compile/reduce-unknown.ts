/**
 * Reductions over an array of unknown length (a boolean-mask selection, unknown-sizes.ts), over
 * all of it, giving NumPy's answer also when the selection turns out empty at run time.
 */
import type { Expr, ReduceOp } from '../../../common/arrays';
import { arrayOpSpec } from '../../../common/array-op-params';
import type { BuildContext, LazyArray, LazyScalar } from '../ops/types';
import type { Steps } from '../slices';
import { mapBlocks, reduceAllSteps } from './array-lower';

const ZERO: Expr = { kind: 'leaf', leaf: { kind: 'fill', value: 0 } };

/** 1 where a value is (NaN included: x != x or x == x), so its sum counts the elements. */
const one = (e: Expr): Expr => ({ kind: 'binary', op: 'max', a: { kind: 'binary', op: 'eq', a: e, b: e }, b: { kind: 'binary', op: 'ne', a: e, b: e } });

const scalarIn: Expr = { kind: 'leaf', leaf: { kind: 'input', dep: 0, region: { start: [], step: [], count: [] } } };

/**
 * `op` (`named`: the node's name of it) over all of `x`. Partials carry their own counts for sum,
 * mean, var...; any / all are counts of True / False compared with 0 (a max of nothing has no
 * False); min, max, nanmin and nanmax of nothing fail when they run, as NumPy raises.
 */
export function* reduceUnknownSteps(x: LazyArray, named: string, op: ReduceOp, truth: boolean, splitEvery: number, ctx: BuildContext, ddof: number): Steps<LazyScalar> {
  if (truth) {
    const all = named === 'all';
    // x is already the truth of the input (bool): count the True (any) or the False (all).
    const counted = all ? mapBlocks(x, (e) => ({ kind: 'binary', op: 'eq', a: e, b: ZERO }), 'not', ctx.nodeId, 'bool') : x;
    const n = yield* reduceAllSteps(counted, 'sum', splitEvery, ctx, 0);
    const key = ctx.key(`${named}-of-count`);
    ctx.emit({ key, deps: [n.key], spec: { kind: 'program', program: { dtype: 'bool', shape: [], expr: { kind: 'binary', op: all ? 'eq' : 'gt', a: scalarIn, b: ZERO } } }, resource: ctx.arrayResource, op: named, outBytes: 1, workBytes: 8 });
    return { kind: 'scalar', key, dtype: 'bool' };
  }
  const v = yield* reduceAllSteps(x, op, splitEvery, ctx, ddof);
  if (!['min', 'max', 'nanmin', 'nanmax'].includes(op)) return v;
  const n = yield* reduceAllSteps(mapBlocks(x, one, 'one', ctx.nodeId, 'int32'), 'sum', splitEvery, ctx, 0);
  const key = ctx.key(`${named}-nonempty`);
  const error = `${named} of an empty selection (the mask held no True) has no identity (NumPy raises ValueError: zero-size array to reduction operation)`;
  ctx.emit({ key, deps: [v.key, n.key], spec: arrayOpSpec('require-elements', { error }), resource: 'any', op: named, outBytes: 8, workBytes: 16 });
  return { kind: 'scalar', key, dtype: v.dtype };
}

