/**
 * TSQR (tall-skinny QR) as dask.array.linalg.tsqr does it, one function per task:
 *
 *   A = [A_0; A_1; ...; A_{K-1}]      row blocks, each with at least n rows
 *   qrBlock(A_i)        -> Q1_i (m_i x n), R_i (n x n)          K independent tasks
 *   stackR([R_i])       -> [R_0; ...; R_{K-1}]  (K n x n)       one task (gathers K small blocks)
 *   qrBlock(stacked)    -> Q2 (K n x n), R (n x n)              one task: the final R
 *   splitRows(Q2, n..)  -> Q2_i (n x n)                         (part of the combine task's input)
 *   combineQ(Q1_i, Q2_i) -> Q_i = Q1_i Q2_i                     K independent tasks
 *
 * `qrBlockFactor` / `combineFactor` are the same two steps with Q1_i kept as its Householder
 * reflectors (same size), which skips forming Q1_i: a third less arithmetic per block. `tsqr` and
 * `svdTsqr` use them.
 *
 * so A = Q R with Q = [Q_0; ...; Q_{K-1}]. The stacked QR exploits the K triangles (see
 * householder.ts) and each Q2_i comes out upper triangular, which matmul skips. For an SVD the
 * combine step folds in U_r: U_i = Q1_i (Q2_i U_r), see svd-tall.ts.
 */
import type { NDArray } from '../../../../common/arrays';
import { check2d, fromMat, LinalgError, resultDType, toMat } from './dense';
import { gemm } from './matmul';
import { applyFactorMat, qr, qrFactorMat } from './qr';

/** The per-block QR: A_i = Q1_i R_i (A_i has at least as many rows as columns). */
export function qrBlock(a: NDArray): { q: NDArray; r: NDArray } {
  check2d(a, 'qrBlock');
  if (a.shape[0] < a.shape[1]) {
    throw new LinalgError(`qrBlock: a TSQR block needs at least as many rows as columns, got [${a.shape.join(', ')}]; use fewer, taller row chunks`);
  }
  return qr(a);
}

/**
 * The per-block QR in compact form: R, and Q1_i as its Householder reflectors packed into a
 * float64 array of shape [n + 2, m_i] (layout: qrFactorMat in qr.ts). The same size as Q1_i, and
 * `combineFactor` applies it without ever forming Q1_i, which saves a third of the block's work.
 */
export function qrBlockFactor(a: NDArray): { factor: NDArray; r: NDArray } {
  const dtype = check2d(a, 'qrBlockFactor');
  if (a.shape[0] < a.shape[1]) {
    throw new LinalgError(`qrBlockFactor: a TSQR block needs at least as many rows as columns, got [${a.shape.join(', ')}]; use fewer, taller row chunks`);
  }
  const { packed, r } = qrFactorMat(toMat(a, 'qrBlockFactor'), 'qrBlockFactor');
  return { factor: fromMat(packed, 'float64'), r: fromMat(r, dtype) };
}

/** Vertically stacks the blocks' R factors (all n x n) into one (K n) x n array. */
export function stackR(rs: NDArray[]): NDArray {
  if (rs.length === 0) throw new LinalgError('stackR: no R factors given');
  const n = rs[0].shape[1];
  rs.forEach((r, i) => {
    check2d(r, `stackR: rs[${i}]`);
    if (r.shape[0] !== n || r.shape[1] !== n) throw new LinalgError(`stackR: rs[${i}] is [${r.shape.join(', ')}], expected [${n}, ${n}]`);
  });
  const dtype = resultDType(...rs.map((r) => r.dtype));
  const out = new Float64Array(rs.length * n * n);
  rs.forEach((r, i) => out.set(r.data as Float64Array | Float32Array, i * n * n));
  return fromMat({ rows: rs.length * n, cols: n, data: out }, dtype);
}

/** Consecutive row blocks of `a` with the given row counts (e.g. Q2 into its n x n blocks). */
export function splitRows(a: NDArray, rows: number[]): NDArray[] {
  const dtype = check2d(a, 'splitRows');
  const total = rows.reduce((x, y) => x + y, 0);
  if (total !== a.shape[0]) throw new LinalgError(`splitRows: row counts add up to ${total}, the array has ${a.shape[0]} rows`);
  const cols = a.shape[1];
  const out: NDArray[] = [];
  let start = 0;
  for (const r of rows) {
    const data = a.data.slice(start * cols, (start + r) * cols) as Float64Array | Float32Array;
    out.push({ dtype, shape: [r, cols], data });
    start += r;
  }
  return out;
}

/**
 * The recombination Q_i = Q1_i Q2_i; with `right` (e.g. the U of R's SVD) it is
 * Q1_i (Q2_i right), the same chain without forming Q_i.
 */
export function combineQ(q1: NDArray, q2: NDArray, right?: NDArray): NDArray {
  check2d(q1, 'combineQ: q1');
  check2d(q2, 'combineQ: q2');
  if (q1.shape[1] !== q2.shape[0]) throw new LinalgError(`combineQ: q1 is [${q1.shape.join(', ')}], q2 block is [${q2.shape.join(', ')}]`);
  let inner = toMat(q2, 'combineQ: q2');
  let dtype = resultDType(q1.dtype, q2.dtype);
  if (right) {
    check2d(right, 'combineQ: right');
    if (right.shape[0] !== q2.shape[1]) throw new LinalgError(`combineQ: right is [${right.shape.join(', ')}], q2 block has ${q2.shape[1]} columns`);
    inner = gemm(inner, toMat(right, 'combineQ: right'));
    dtype = resultDType(dtype, right.dtype);
  }
  return fromMat(gemm(toMat(q1, 'combineQ: q1'), inner), dtype);
}

/** `combineQ` for a compact Q1_i from `qrBlockFactor`: Q1_i Q2_i, or Q1_i (Q2_i right). */
export function combineFactor(factor: NDArray, q2: NDArray, right?: NDArray): NDArray {
  check2d(factor, 'combineFactor: factor');
  check2d(q2, 'combineFactor: q2');
  let inner = toMat(q2, 'combineFactor: q2');
  let dtype = q2.dtype === 'float32' ? 'float32' as const : 'float64' as const;
  if (right) {
    check2d(right, 'combineFactor: right');
    if (right.shape[0] !== q2.shape[1]) throw new LinalgError(`combineFactor: right is [${right.shape.join(', ')}], q2 block has ${q2.shape[1]} columns`);
    inner = gemm(inner, toMat(right, 'combineFactor: right'));
    dtype = resultDType(dtype, right.dtype);
  }
  return fromMat(applyFactorMat(toMat(factor, 'combineFactor: factor'), inner, 'combineFactor'), dtype);
}

/** The whole TSQR over row blocks, composed from the steps above: Q's row blocks and R. */
export function tsqr(blocks: NDArray[]): { q: NDArray[]; r: NDArray } {
  if (blocks.length === 0) throw new LinalgError('tsqr: no blocks given');
  const n = blocks[0].shape[1];
  blocks.forEach((b, i) => {
    check2d(b, `tsqr: blocks[${i}]`);
    if (b.shape[1] !== n) throw new LinalgError(`tsqr: blocks[${i}] has ${b.shape[1]} columns, blocks[0] has ${n}`);
  });
  const first = blocks.map(qrBlockFactor);
  const second = qrBlock(stackR(first.map((f) => f.r)));
  const q2 = splitRows(second.q, blocks.map(() => n));
  return { q: first.map((f, i) => combineFactor(f.factor, q2[i])), r: second.r };
}
