/** Elementwise nodes: binary ops of two arrays (broadcasting), unary functions, clip. All fuse. */
import type { BinaryOp, DType, UnaryOp } from '../../../common/arrays';
import { COMPARE_OPS } from '../../../common/arrays';
import { align } from '../compile/broadcast';
import { mapBlocks, settle } from '../compile/array-lower';
import { shiftDeps } from '../compile/restrict';
import { arrayInput, num } from './arrays-core';
import type { LazyArray, OpDef } from './types';

const BINARY: BinaryOp[] = ['add', 'sub', 'mul', 'div', 'pow', 'min', 'max', ...COMPARE_OPS];
const UNARY: UnaryOp[] = ['neg', 'abs', 'exp', 'log', 'sqrt', 'sin', 'cos', 'tanh', 'square', 'round'];

/** NumPy's result type for the dtypes we have: any float wins; float32 only with float32/int32. */
export function resultDType(a: DType, b: DType, op: BinaryOp): DType {
  // Comparisons give NumPy's bool as 0 / 1; int32 is the narrowest dtype this engine has.
  if ((COMPARE_OPS as string[]).includes(op)) return 'int32';
  const isInt = (d: DType) => d === 'int32' || d === 'int64';
  if (isInt(a) && isInt(b)) return op === 'div' || op === 'pow' ? 'float64' : a === 'int64' || b === 'int64' ? 'int64' : 'int32';
  if (a === 'float64' || b === 'float64' || a === 'int64' || b === 'int64') return 'float64';
  return 'float32';
}

const binary: OpDef = {
  spec: {
    op: 'binary',
    label: 'Array ∘ array',
    category: 'arrays',
    doc: 'Elementwise a + b, a − b, a × b, a ÷ b, a ** b, minimum, maximum, or a comparison (eq, ne, lt, le, gt, ge: 1 where true, 0 where false, int32), with NumPy broadcasting.',
    inputs: [
      { name: 'a', type: 'array' },
      { name: 'b', type: 'array' },
    ],
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'op', kind: 'enum', options: BINARY, default: 'add' }],
  },
  build(ctx) {
    const op = (ctx.params.op ?? 'add') as BinaryOp;
    const compare = (COMPARE_OPS as string[]).includes(op);
    const a = compare ? settle(arrayInput(ctx, 'a'), 'int32', ctx, 'src-a') : arrayInput(ctx, 'a');
    const b = compare ? settle(arrayInput(ctx, 'b'), 'int32', ctx, 'src-b') : arrayInput(ctx, 'b');
    const al = align([a, b], ctx, 'b');
    const [x, y] = al.operands;
    const out: LazyArray = {
      kind: 'array',
      shape: al.shape,
      chunks: al.chunks,
      dtype: resultDType(a.dtype, b.dtype, op),
      opName: `${x.opName}+${op}`,
      nodes: [...x.nodes, ...y.nodes, ctx.nodeId],
      block(idx) {
        const p = al.block(x, idx);
        const q = al.block(y, idx);
        return { expr: { kind: 'binary', op, a: p.expr, b: shiftDeps(q.expr, p.deps.length) }, deps: [...p.deps, ...q.deps] };
      },
    };
    return { out };
  },
};

const unary: OpDef = {
  spec: {
    op: 'unary',
    label: 'Function',
    category: 'arrays',
    doc: 'Elementwise neg, abs, exp, log, sqrt, sin, cos, tanh, square or round (to the nearest integer, halves to even, as numpy.round).',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'op', kind: 'enum', options: UNARY, default: 'abs' }],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    const op = (ctx.params.op ?? 'abs') as UnaryOp;
    const float = op === 'neg' || op === 'abs' || op === 'square' || op === 'round' ? x.dtype : x.dtype === 'float32' ? 'float32' : 'float64';
    return { out: mapBlocks(x, (e) => ({ kind: 'unary', op, arg: e }), op, ctx.nodeId, float) };
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
    const x = arrayInput(ctx, 'x');
    const lo = num(ctx, 'min');
    const hi = num(ctx, 'max');
    if (!(lo <= hi)) ctx.fail('params.max', `must not be below min (${lo})`);
    return { out: mapBlocks(x, (e) => ({ kind: 'clip', arg: e, lo, hi }), 'clip', ctx.nodeId) };
  },
};

export const ELEMENTWISE_ARRAY_OPS: OpDef[] = [binary, unary, clip];
