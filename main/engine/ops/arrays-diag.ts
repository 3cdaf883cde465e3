/**
 * numpy.diag: a 1-D input becomes the square matrix with it on the k-th diagonal, a 2-D input
 * gives its k-th diagonal. Both are blockwise programs over a mask `column == row + k` (the
 * two broadcast arange leaves eye uses), so they run on every backend:
 *  - 1-D v of length n: where(mask, v broadcast along the other axis, 0) over the n x (n + |k|)
 *    part the diagonal crosses, and a block of zeros for the |k| rows (k > 0) or columns (k < 0)
 *    it never reaches, concatenated.
 *  - 2-D x: the rows the diagonal crosses (a slice), where(mask, x, 0) summed along the columns
 *    (one non-zero term per row, so the int64 sum is exact) and cast back to x's dtype. It reads
 *    the whole of those rows, where dask.array.diagonal picks the diagonal blocks only.
 */
import type { DType, Expr } from '../../../common/arrays';
import { reduceAxisSteps, sliceArray } from '../compile/array-lower';
import { blockOffset, blockShape, normalizeChunks } from '../compile/chunks';
import { arrayInput } from './arrays-core';
import { diagonalTest } from './arrays-create';
import { concatArrays } from './arrays-join';
import { castArray } from './arrays-select';
import type { BuildContext, LazyArray, OpDef } from './types';

const fill = (value: number): Expr => ({ kind: 'leaf', leaf: { kind: 'fill', value } });

/** The mask `column == row + k` of one block (eye's), 1 / 0. */
const diagonalMask = (n: number, m: number, k: number, offset: number[], shape: number[]): Expr => diagonalTest('eq', n, m, k, offset, shape);

function zeros(shape: number[], chunks: number[][], dtype: DType, ctx: BuildContext): LazyArray {
  return { kind: 'array', shape, chunks, dtype, opName: 'zeros', nodes: [ctx.nodeId], block: () => ({ expr: fill(0), deps: [] }) };
}

/** The n x (n + |k|) (k >= 0) or (n + |k|) x n (k < 0) part of diag(v, k) that holds v. */
function vectorToMatrix(v: LazyArray, k: number, ctx: BuildContext): LazyArray {
  const n = v.shape[0];
  const big = n + Math.abs(k);
  // v runs along the rows (k >= 0: out[i, i + k] = v[i]) or along the columns (k < 0: out[j - k, j] = v[j]).
  const along = k >= 0 ? 0 : 1;
  const other = normalizeChunks([big], [Math.max(1, v.chunks[0][0] ?? 1)])[0];
  const chunks = along === 0 ? [v.chunks[0], other] : [other, v.chunks[0]];
  const shape = along === 0 ? [n, big] : [big, n];
  const part: LazyArray = {
    kind: 'array',
    shape,
    chunks,
    dtype: v.dtype,
    opName: `${v.opName}+diag`,
    nodes: [...v.nodes, ctx.nodeId],
    block(idx) {
      const b = v.block([idx[along]]);
      const bs = blockShape(chunks, idx);
      const values: Expr = { kind: 'broadcast', arg: b.expr, from: [bs[along]], axes: [along] };
      return { expr: { kind: 'where', cond: diagonalMask(shape[0], shape[1], k, blockOffset(chunks, idx), bs), a: values, b: fill(0) }, deps: b.deps };
    },
  };
  if (k === 0) return part;
  const rest = along === 0 ? zeros([k, big], [[k], other], v.dtype, ctx) : zeros([big, -k], [other, [-k]], v.dtype, ctx);
  return concatArrays([part, rest], along === 0 ? 0 : 1, ctx);
}

const diag: OpDef = {
  spec: {
    op: 'diag',
    label: 'Diagonal',
    category: 'arrays',
    doc: 'numpy.diag(x, k): a 1-D x becomes the square matrix with x on the k-th diagonal (k > 0 above the main one); a 2-D x gives its k-th diagonal (1-D, in x\'s dtype).',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'k', kind: 'number', integer: true, default: 0, doc: 'diagonal offset (positive: above the main one)' }],
  },
  *build(ctx) {
    const x = arrayInput(ctx, 'x');
    const k = (ctx.params.k ?? 0) as number;
    if (x.shape.length === 1) return { out: vectorToMatrix(x, k, ctx) };
    if (x.shape.length !== 2) return ctx.fail('inputs.x', `diag takes a 1-D or 2-D array, got ${x.shape.length}-D (NumPy: "Input must be 1- or 2-d.")`);
    const [n, m] = x.shape;
    // Rows [r0, r0 + len) hold the diagonal: row i meets column i + k.
    const r0 = Math.max(0, -k);
    const len = Math.max(0, Math.min(n - r0, m - r0 - k));
    const rows = sliceArray(x, { axes: [{ start: len > 0 ? r0 : 0, step: 1, count: len }, { start: 0, step: 1, count: m }], layout: [0, 1] }, ctx.nodeId);
    const masked: LazyArray = {
      ...rows,
      opName: `${rows.opName}+diag`,
      nodes: [...rows.nodes, ctx.nodeId],
      block(idx) {
        const b = rows.block(idx);
        return { expr: { kind: 'where', cond: diagonalMask(len, m, r0 + k, blockOffset(rows.chunks, idx), blockShape(rows.chunks, idx)), a: b.expr, b: fill(0) }, deps: b.deps };
      },
    };
    const sums = yield* reduceAxisSteps(masked, 'sum', 1, 8, ctx);
    return { out: castArray(sums, x.dtype, ctx) };
  },
};

export const DIAG_ARRAY_OPS: OpDef[] = [diag];
