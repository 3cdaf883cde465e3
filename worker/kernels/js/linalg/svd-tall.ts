/**
 * SVD of a tall-skinny array through TSQR (dask.array.linalg.tsqr with compute_svd=True):
 *
 *   qrBlockFactor(A_i) -> Q1_i (compact), R_i    K tasks
 *   stackR + qrBlock -> Q2, R                    one task
 *   svdOfR(R)    -> U_r, S, V^T                  one task (small: n x n)
 *   combineFactor(Q1_i, Q2_i, U_r) -> U_i        K tasks: U_i = Q1_i (Q2_i U_r)
 *
 * A = [Q1_i Q2_i] R = [Q1_i Q2_i U_r] S V^T. `svdTsqr` composes these steps over row blocks.
 */
import type { NDArray } from '../../../../common/arrays';
import { check2d, LinalgError } from './dense';
import { svd, type Svd } from './svd';
import { combineFactor, qrBlock, qrBlockFactor, splitRows, stackR } from './tsqr';

/** The small SVD of TSQR's final R (n x n). */
export function svdOfR(r: NDArray): Svd {
  return svd(r);
}

/** Thin SVD of the matrix whose row blocks are `blocks`: U comes back in the same row blocks. */
export function svdTsqr(blocks: NDArray[]): { u: NDArray[]; s: NDArray; vt: NDArray } {
  if (blocks.length === 0) throw new LinalgError('svdTsqr: no blocks given');
  const n = blocks[0].shape[1];
  blocks.forEach((b, i) => {
    check2d(b, `svdTsqr: blocks[${i}]`);
    if (b.shape[1] !== n) throw new LinalgError(`svdTsqr: blocks[${i}] has ${b.shape[1]} columns, blocks[0] has ${n}`);
  });
  const first = blocks.map(qrBlockFactor);
  const second = qrBlock(stackR(first.map((f) => f.r)));
  const small = svdOfR(second.r);
  const q2 = splitRows(second.q, blocks.map(() => n));
  return { u: first.map((f, i) => combineFactor(f.factor, q2[i], small.u)), s: small.s, vt: small.vt };
}

/**
 * Splits the rows of `a` into `k` blocks as evenly as possible (the first `rows % k` get one
 * more), each of which must keep at least as many rows as `a` has columns.
 */
export function rowBlocks(a: NDArray, k: number): NDArray[] {
  check2d(a, 'rowBlocks');
  const [m, n] = a.shape;
  if (!Number.isSafeInteger(k) || k < 1) throw new LinalgError(`rowBlocks: block count must be a positive integer, got ${k}`);
  const base = Math.floor(m / k);
  if (base < n) throw new LinalgError(`rowBlocks: ${k} blocks of a [${m}, ${n}] array would have fewer than ${n} rows; use at most ${Math.floor(m / Math.max(n, 1))}`);
  return splitRows(a, Array.from({ length: k }, (_, i) => base + (i < m % k ? 1 : 0)));
}
