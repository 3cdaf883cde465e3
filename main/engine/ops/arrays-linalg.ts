/**
 * Linear algebra nodes as task graphs (docs/linalg.md):
 * - matmul: blockwise contraction, C[i,j] = sum_l A[i,l] B[l,j], one task per output block;
 *   operand and output blocks carry grid coordinates so the scheduler places them SUMMA-like
 *   (main/engine/scheduler/placement.ts): A[i,l] at (i, l), B[l,j] at (l, j), C[i,j] at (i, j);
 * - qr / svd of tall-skinny arrays: TSQR as dask.array.linalg.tsqr does it: a QR per row block,
 *   one QR of the stacked R factors (and the SVD of R), then one recombination per row block;
 *   row block i, its QR and its recombination carry the 1-D place i, so they share a worker.
 */
import type { DType } from '../../../common/arrays';
import type { TaskPlace } from '../../../common/tasks';
import { bytesPerElement, sizeOf } from '../../../common/arrays';
import { fromKeys, materialize } from '../compile/array-lower';
import { axisChunks, blockShape } from '../compile/chunks';
import { rechunk, sameChunks } from '../compile/rechunk';
import { arrayInput } from './arrays-core';
import type { BuildContext, LazyArray, OpDef } from './types';

const floatOf = (...d: DType[]): DType => (d.every((x) => x === 'float32') ? 'float32' : 'float64');

function need2d(ctx: BuildContext, a: LazyArray, port: string): void {
  if (a.shape.length !== 2) ctx.fail(`inputs.${port}`, `expects a 2-D array, got shape (${a.shape.join(', ')})`);
}

const matmul: OpDef = {
  spec: {
    op: 'matmul',
    label: 'Matmul',
    category: 'arrays',
    doc: 'Matrix product a @ b of 2-D arrays, as a blockwise contraction (cuBLAS on GPU workers, BLAS or blocked C++ on CPU workers).',
    inputs: [
      { name: 'a', type: 'array' },
      { name: 'b', type: 'array' },
    ],
    outputs: [{ name: 'out', type: 'array' }],
    params: [],
  },
  build(ctx) {
    const a0 = arrayInput(ctx, 'a');
    const b0 = arrayInput(ctx, 'b');
    need2d(ctx, a0, 'a');
    need2d(ctx, b0, 'b');
    if (a0.shape[1] !== b0.shape[0]) ctx.fail('inputs.b', `shapes (${a0.shape.join(', ')}) and (${b0.shape.join(', ')}) do not align: ${a0.shape[1]} != ${b0.shape[0]}`);
    const grid = (idx: number[]): TaskPlace => ({ grid: [idx[0], idx[1]] });
    const a = materialize(a0, ctx, 'a', grid);
    // The contraction axis must be split the same way on both sides.
    const bc = [a.chunks[1], b0.chunks[1]];
    const b = materialize(sameChunks(b0.chunks, bc) ? b0 : rechunk(b0, bc, ctx, 'align-b'), ctx, 'b', grid);
    const L = a.chunks[1].length;
    const dtype = floatOf(a.dtype, b.dtype);
    const chunks = [a.chunks[0], b.chunks[1]];
    const keys: string[] = [];
    for (let i = 0; i < chunks[0].length; i++) {
      for (let j = 0; j < chunks[1].length; j++) {
        const deps: string[] = [];
        for (let l = 0; l < L; l++) deps.push(a.block([i, l]).deps[0]);
        for (let l = 0; l < L; l++) deps.push(b.block([l, j]).deps[0]);
        const outBytes = sizeOf(blockShape(chunks, [i, j])) * bytesPerElement(dtype);
        const inBytes = deps.length * Math.max(sizeOf(blockShape(a.chunks, [i, 0])), sizeOf(blockShape(b.chunks, [0, j]))) * bytesPerElement(dtype);
        const key = ctx.key('matmul', [i, j]);
        ctx.emit({ key, deps, spec: { kind: 'array-op', op: 'matmul', params: { k: L } }, resource: 'any', op: 'matmul', outBytes, workBytes: outBytes + inBytes, place: { grid: [i, j] } });
        keys.push(key);
      }
    }
    return { out: fromKeys([a.shape[0], b.shape[1]], chunks, dtype, keys, ctx.nodeId, [ctx.nodeId]) };
  },
};

/** Row chunks for TSQR: every block needs at least n rows, so a short last block joins the one before. */
export function tsqrRowChunks(rows: number[], n: number): number[] {
  const out: number[] = [];
  for (const r of rows) {
    if (out.length && (r < n || out[out.length - 1] < n)) out[out.length - 1] += r;
    else out.push(r);
  }
  return out;
}

interface Tsqr {
  rowChunks: number[];
  n: number;
  top: string;
  blocks: string[];
}

/** Emits the TSQR factor and top tasks; the caller emits the per-block recombinations. */
function tsqr(ctx: BuildContext, x: LazyArray, svd: boolean): Tsqr {
  need2d(ctx, x, 'x');
  const [m, n] = x.shape;
  if (m < n) ctx.fail('inputs.x', `needs a tall-skinny array (rows >= columns), got (${m}, ${n})`);
  const rowChunks = tsqrRowChunks(x.chunks[0].every((r) => r >= n) ? x.chunks[0] : axisChunks(m, Math.max(n, x.chunks[0][0])), n);
  const want = [rowChunks, [n]];
  const a = materialize(sameChunks(x.chunks, want) ? x : rechunk(x, want, ctx, 'rows'), ctx, 'a', (idx) => ({ index: idx[0] }));
  const factors: string[] = [];
  rowChunks.forEach((r, i) => {
    const key = ctx.key('qr-block', [i]);
    const bytes = (r + 2) * n * 8 + n * n * 8;
    ctx.emit({ key, deps: a.block([i, 0]).deps, spec: { kind: 'array-op', op: 'qr-block', params: {} }, resource: 'any', op: 'qr-block', outBytes: bytes, workBytes: 2 * bytes, place: { index: i } });
    factors.push(key);
  });
  const top = ctx.key(svd ? 'svd-top' : 'qr-top');
  const k = rowChunks.length;
  const topBytes = (k * n * n + 4 * n * n) * 8;
  ctx.emit({ key: top, deps: factors, spec: { kind: 'array-op', op: 'qr-top', params: { svd } }, resource: 'any', op: svd ? 'svd-top' : 'qr-top', outBytes: topBytes, workBytes: 2 * topBytes });
  return { rowChunks, n, top, blocks: factors };
}

function recombine(ctx: BuildContext, t: Tsqr, svd: boolean, dtype: DType): LazyArray {
  const keys = t.blocks.map((f, i) => {
    const key = ctx.key(svd ? 'u' : 'q', [i, 0]);
    const bytes = t.rowChunks[i] * t.n * 8;
    ctx.emit({ key, deps: [f, t.top], spec: { kind: 'array-op', op: 'qr-combine', params: { index: i, svd } }, resource: 'any', op: svd ? 'svd-u' : 'qr-q', outBytes: bytes, workBytes: 3 * bytes, place: { index: i } });
    return key;
  });
  return fromKeys([t.rowChunks.reduce((s, r) => s + r, 0), t.n], [t.rowChunks, [t.n]], dtype, keys, ctx.nodeId, [ctx.nodeId]);
}

function pick(ctx: BuildContext, t: Tsqr, name: string, shape: number[], dtype: DType): LazyArray {
  const key = ctx.key(`pick-${name}`);
  const bytes = sizeOf(shape) * 8;
  ctx.emit({ key, deps: [t.top], spec: { kind: 'array-op', op: 'pick', params: { name } }, resource: 'any', op: name, outBytes: bytes, workBytes: bytes });
  return fromKeys(shape, shape.map((s) => [s]), dtype, [key], ctx.nodeId, [ctx.nodeId]);
}

const qr: OpDef = {
  spec: {
    op: 'qr',
    label: 'QR (tall-skinny)',
    category: 'arrays',
    doc: 'Reduced QR of a tall-skinny array by TSQR: Q has the input\'s row blocks, R is n x n with a non-negative diagonal.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [
      { name: 'q', type: 'array' },
      { name: 'r', type: 'array' },
    ],
    params: [],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    const t = tsqr(ctx, x, false);
    const dtype = floatOf(x.dtype);
    return { q: recombine(ctx, t, false, dtype), r: pick(ctx, t, 'r', [t.n, t.n], dtype) };
  },
};

const svd: OpDef = {
  spec: {
    op: 'svd',
    label: 'SVD (tall-skinny)',
    category: 'arrays',
    doc: 'Thin SVD of a tall-skinny array by TSQR and the SVD of R: A = U diag(S) Vᵀ, singular values descending, signs fixed.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [
      { name: 'u', type: 'array' },
      { name: 's', type: 'array' },
      { name: 'vt', type: 'array' },
    ],
    params: [],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    const t = tsqr(ctx, x, true);
    const dtype = floatOf(x.dtype);
    return { u: recombine(ctx, t, true, dtype), s: pick(ctx, t, 's', [t.n], dtype), vt: pick(ctx, t, 'vt', [t.n, t.n], dtype) };
  },
};

export const LINALG_ARRAY_OPS: OpDef[] = [matmul, qr, svd];
