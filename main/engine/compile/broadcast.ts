/**
 * Aligning two arrays for an elementwise op, NumPy style: shapes broadcast (leading axes added,
 * size-1 axes repeated); where both operands span an axis their chunks must agree, so the second
 * is rechunked to the first's; a broadcast operand's block is wrapped in a `broadcast` node.
 */
import type { BinaryOp, DType, Expr } from '../../../common/arrays';
import type { BuildContext, LazyArray } from '../ops/types';
import { blockShape } from './chunks';
import { rechunk, sameChunks } from './rechunk';
import { shiftDeps } from './restrict';

export function broadcastShapes(a: number[], b: number[]): number[] | null {
  const n = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1;
    const y = b[b.length - n + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) return null;
    out.push(x === 1 ? y : x);
  }
  return out;
}

/** Output chunks: on each axis, those of the first operand that spans it. */
function outChunks(shape: number[], ops: LazyArray[]): number[][] {
  return shape.map((n, d) => {
    for (const o of ops) {
      const od = d - (shape.length - o.shape.length);
      if (od >= 0 && o.shape[od] === n) return o.chunks[od];
    }
    return [n];
  });
}

/** An operand viewed with the output's block grid: its block expression per output block. */
export interface Aligned {
  shape: number[];
  chunks: number[][];
  block(op: LazyArray, idx: number[]): { expr: Expr; deps: string[] };
  operands: LazyArray[];
}

export function align(ops: LazyArray[], ctx: BuildContext, port: string): Aligned {
  let shape: number[] = ops[0].shape;
  for (const o of ops.slice(1)) {
    const s = broadcastShapes(shape, o.shape);
    if (!s) return ctx.fail(`inputs.${port}`, `shapes ${ops.map((x) => `(${x.shape.join(', ')})`).join(' and ')} cannot be broadcast together`);
    shape = s;
  }
  const chunks = outChunks(shape, ops);
  const operands = ops.map((o) => {
    const pad = shape.length - o.shape.length;
    // The chunks this operand must have: the output's on spanned axes, whole on broadcast ones.
    const want = o.shape.map((n, d) => (n === shape[d + pad] ? chunks[d + pad] : [n]));
    return sameChunks(o.chunks, want) ? o : rechunk(o, want, ctx, `align-${o.nodes[o.nodes.length - 1] ?? 'x'}`);
  });
  return {
    shape,
    chunks,
    operands,
    block(o, idx) {
      const pad = shape.length - o.shape.length;
      const own = o.shape.map((n, d) => (n === shape[d + pad] ? idx[d + pad] : 0));
      const b = o.block(own);
      const from = blockShape(o.chunks, own);
      const full = blockShape(chunks, idx);
      const same = from.length === full.length && from.every((x, d) => x === full[d]);
      return same ? b : { expr: { kind: 'broadcast', arg: b.expr, from }, deps: b.deps };
    },
  };
}

/** a ∘ b elementwise with NumPy broadcasting, each output block one fused expression. */
export function alignedBinary(a: LazyArray, b: LazyArray, op: BinaryOp, dtype: DType, ctx: BuildContext, port: string): LazyArray {
  return alignedCombine(a, b, (x, y) => ({ kind: 'binary', op, a: x, b: y }), op, dtype, ctx, port);
}

/** Like alignedBinary, the two aligned block expressions joined by `combine` (a composed op such as logical_and). */
export function alignedCombine(a: LazyArray, b: LazyArray, combine: (x: Expr, y: Expr) => Expr, opName: string, dtype: DType, ctx: BuildContext, port: string): LazyArray {
  const al = align([a, b], ctx, port);
  const [x, y] = al.operands;
  return {
    kind: 'array',
    shape: al.shape,
    chunks: al.chunks,
    dtype,
    opName: `${x.opName}+${opName}`,
    nodes: [...x.nodes, ...y.nodes, ctx.nodeId],
    block(idx) {
      const p = al.block(x, idx);
      const q = al.block(y, idx);
      return { expr: combine(p.expr, shiftDeps(q.expr, p.deps.length)), deps: [...p.deps, ...q.deps] };
    },
  };
}
