/** Elementwise nodes: binary ops of two arrays (broadcasting), unary functions, clip. All fuse. */
import type { BinaryOp, DType, Expr, UnaryOp } from '../../../common/arrays';
import { COMPARE_OPS } from '../../../common/arrays';
import { binaryResultType, boolProblem, scalarOperand, unaryResultType } from '../../../common/dtype-rules';
import { alignedBinary, alignedCombine } from '../compile/broadcast';
import { mapBlocks, settle, sliceArray } from '../compile/array-lower';
import { arrayInput, num, truthOf, ZERO } from './arrays-core';
import type { BuildContext, LazyArray, OpDef } from './types';

const BINARY: BinaryOp[] = ['add', 'sub', 'mul', 'div', 'pow', 'min', 'max', ...COMPARE_OPS];
const UNARY: UnaryOp[] = ['neg', 'abs', 'exp', 'log', 'sqrt', 'sin', 'cos', 'tanh', 'square', 'round', 'isnan', 'isfinite', 'floor', 'ceil'];
/** numpy.logical_*: bool results composed of the comparisons, so every backend runs them as they are. */
const LOGICAL = ['logical_and', 'logical_or', 'logical_xor'] as const;
type LogicalOp = (typeof LOGICAL)[number];


function logicalExpr(op: LogicalOp, a: Expr, b: Expr): Expr {
  const ta = truthOf(a);
  const tb = truthOf(b);
  if (op === 'logical_and') return { kind: 'binary', op: 'mul', a: ta, b: tb };
  if (op === 'logical_or') return { kind: 'binary', op: 'max', a: ta, b: tb };
  return { kind: 'binary', op: 'ne', a: ta, b: tb };
}

const binary: OpDef = {
  spec: {
    op: 'binary',
    label: 'Array ∘ array',
    category: 'arrays',
    doc: 'Elementwise a + b, a − b, a × b, a ÷ b, a ** b, minimum, maximum, a comparison (eq, ne, lt, le, gt, ge: bool) or logical_and / logical_or / logical_xor (bool), with NumPy broadcasting. Of two bools, + is logical or and × logical and (bool), as NumPy.',
    inputs: [
      { name: 'a', type: 'array' },
      { name: 'b', type: 'array' },
    ],
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'op', kind: 'enum', options: [...BINARY, ...LOGICAL], default: 'add' }],
  },
  build(ctx) {
    const named = (ctx.params.op ?? 'add') as BinaryOp | LogicalOp;
    const a0 = arrayInput(ctx, 'a');
    const b0 = arrayInput(ctx, 'b');
    if ((LOGICAL as readonly string[]).includes(named)) {
      const lop = named as LogicalOp;
      // Each operand's truth is taken in its own precision (a float32 chain is computed first).
      return { out: alignedCombine(settle(a0, 'bool', ctx, 'src-a'), settle(b0, 'bool', ctx, 'src-b'), (x, y) => logicalExpr(lop, x, y), lop, 'bool', ctx, 'b') };
    }
    const op = named as BinaryOp;
    const problem = boolProblem(op, [a0.dtype, b0.dtype]);
    if (problem) return ctx.fail('params.op', problem);
    const dtype = binaryResultType(a0.dtype, b0.dtype, op);
    // A program computes in its output dtype: a chain of another precision is computed first.
    const a = settle(a0, dtype, ctx, 'src-a');
    const b = settle(b0, dtype, ctx, 'src-b');
    // bool + bool is logical or: max keeps the values 0 / 1 for the ops fused after it.
    return { out: alignedBinary(a, b, dtype === 'bool' && op === 'add' ? 'max' : op, dtype, ctx, 'b') };
  },
};

const diff: OpDef = {
  spec: {
    op: 'diff',
    label: 'Difference',
    category: 'arrays',
    doc: 'numpy.diff with n=1: x[1:] - x[:-1] along an axis (negative counts from the end), in the input\'s dtype.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'axis', kind: 'number', integer: true, default: -1 }],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    const nd = x.shape.length;
    const axis = (ctx.params.axis ?? -1) as number;
    if (nd === 0) return ctx.fail('inputs.x', 'diff needs an array of at least one dimension (NumPy raises ValueError)');
    if (!Number.isInteger(axis) || axis < -nd || axis >= nd) return ctx.fail('params.axis', `axis ${axis} is out of bounds for the ${nd}-d input`);
    const along = axis < 0 ? axis + nd : axis;
    const part = (start: number): LazyArray => {
      const axes = x.shape.map((n, d) => (d === along ? { start, step: 1, count: Math.max(0, n - 1) } : { start: 0, step: 1, count: n }));
      return sliceArray(x, { axes, layout: x.shape.map((_, d) => d) }, ctx.nodeId);
    };
    // NumPy's diff of a bool is not_equal (bool - bool is an error).
    return { out: alignedBinary(part(1), part(0), x.dtype === 'bool' ? 'ne' : 'sub', x.dtype, ctx, 'x') };
  },
};

const unary: OpDef = {
  spec: {
    op: 'unary',
    label: 'Function',
    category: 'arrays',
    doc: 'Elementwise neg, abs, exp, log, sqrt, sin, cos, tanh, square, round (to the nearest integer, halves to even, as numpy.round), isnan or isfinite (bool), logical_not (bool), floor or ceil (an integer input gives float64, as NumPy 1.x).',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'op', kind: 'enum', options: [...UNARY, 'logical_not'], default: 'abs' }],
  },
  build(ctx) {
    const named = (ctx.params.op ?? 'abs') as UnaryOp | 'logical_not';
    const x0 = arrayInput(ctx, 'x', { unknownSizes: true });
    if (named === 'logical_not') {
      const x = settle(x0, 'bool', ctx, 'src');
      return { out: mapBlocks(x, (e) => ({ kind: 'binary', op: 'eq', a: e, b: ZERO }), named, ctx.nodeId, 'bool') };
    }
    const op = named;
    const problem = boolProblem(op, [x0.dtype]);
    if (problem) return ctx.fail('params.op', problem);
    const dtype = unaryResultType(x0.dtype, op);
    // isnan of a float32 chain: the chain computes in float32 first (an int32 program computes in float64).
    const x = settle(x0, dtype, ctx, 'src');
    return { out: mapBlocks(x, (e) => ({ kind: 'unary', op, arg: e }), op, ctx.nodeId, dtype) };
  },
};

const clip: OpDef = {
  spec: {
    op: 'clip',
    label: 'Clip',
    category: 'arrays',
    doc: 'Limits values to [min, max].',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [
      { name: 'min', kind: 'number', required: true },
      { name: 'max', kind: 'number', required: true },
    ],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x', { unknownSizes: true });
    const lo = num(ctx, 'min');
    const hi = num(ctx, 'max');
    if (!(lo <= hi)) ctx.fail('params.max', `must not be below min (${lo})`);
    // NumPy 2 casts the bounds to the array's dtype (NEP 50).
    return { out: mapBlocks(x, (e) => ({ kind: 'clip', arg: e, lo: scalarOperand(lo, x.dtype), hi: scalarOperand(hi, x.dtype) }), 'clip', ctx.nodeId) };
  },
};

export const ELEMENTWISE_ARRAY_OPS: OpDef[] = [binary, unary, clip, diff];
