/**
 * Issue 3's acceptance property: the SVD of a 10000 x 1000 float64 array through TSQR in 10 row
 * blocks, composed from the same steps the task graph runs, has ||A - U S V^T|| / ||A|| < 1e-12
 * and ||U^T U - I|| < 1e-12 (Frobenius norms).
 *
 * U^T U is computed exactly (every entry). ||A - U S V^T||_F would cost as much as the SVD itself,
 * so it is estimated from Gaussian probes g (E||E g||^2 = ||E||_F^2 for E = A - U S V^T) and the
 * estimate must be 10x below the bound: with 16 probes an underestimate by 10x has probability
 * below 1e-15. Sampled rows of U S V^T are also checked exactly, entry by entry.
 * The run takes tens of seconds on one core; bench/arrays/linalg.ts measures it.
 */
import { describe, expect, it } from 'vitest';
import type { NDArray } from '../../../common/arrays';
import { gemmNT } from '../../../worker/kernels/js/linalg/gemm-nt';
import { gaussianTestMatrix } from '../../../worker/kernels/js/linalg/randomized';
import { rowBlocks, svdOfR } from '../../../worker/kernels/js/linalg/svd-tall';
import { combineFactor, qrBlock, qrBlockFactor, splitRows, stackR } from '../../../worker/kernels/js/linalg/tsqr';
import { transpose } from '../../../worker/kernels/js/linalg/transpose';

const M = 10_000;
const N = 1_000;
const BLOCKS = 10;

/** ||U^T U - I||_F over U's row blocks, exactly: the upper triangle of the Gram matrix by 4-row strips. */
function gramError(us: NDArray[]): number {
  const g = new Float64Array(N * N);
  for (const u of us) {
    const ut = transpose(u).data as Float64Array; // rows are U's columns
    const len = u.shape[0];
    for (let i = 0; i < N; i += 4) {
      const rows = Math.min(4, N - i);
      gemmNT(ut, i * len, len, ut, i * len, len, g, i * N + i, N, rows, N - i, len, 1);
    }
  }
  let s = 0;
  for (let p = 0; p < N; p++) {
    for (let q = p; q < N; q++) {
      const e = g[p * N + q] - (p === q ? 1 : 0);
      s += (p === q ? 1 : 2) * e * e;
    }
  }
  return Math.sqrt(s);
}

/** (A x) for row blocks of A (each rows x cols). */
function matvecBlocks(blocks: NDArray[], x: Float64Array): Float64Array[] {
  return blocks.map((b) => {
    const [rows, cols] = b.shape;
    const d = b.data as Float64Array;
    const y = new Float64Array(rows);
    for (let i = 0; i < rows; i++) {
      let s = 0;
      for (let j = 0; j < cols; j++) s += d[i * cols + j] * x[j];
      y[i] = s;
    }
    return y;
  });
}

describe('SVD of a 10000 x 1000 float64 array through TSQR (10 blocks)', () => {
  it('reconstructs A to 1e-12 with orthonormal U', () => {
    const a = gaussianTestMatrix(M, N, 2024);
    const blocks = rowBlocks(a, BLOCKS);
    const t0 = performance.now();

    // The task graph's steps, one call per task.
    const first = blocks.map(qrBlockFactor);
    const second = qrBlock(stackR(first.map((f) => f.r)));
    const { u: ur, s, vt } = svdOfR(second.r);
    const q2 = splitRows(second.q, blocks.map(() => N));
    const u = first.map((f, i) => combineFactor(f.factor, q2[i], ur));
    console.log(`tsqr svd of ${M} x ${N}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    expect(u.map((b) => b.shape)).toEqual(blocks.map((b) => [b.shape[0], N]));
    const sv = s.data as Float64Array;
    for (let i = 1; i < N; i++) expect(sv[i]).toBeLessThanOrEqual(sv[i - 1]);
    // Marchenko-Pastur: singular values of a 10000 x 1000 standard normal matrix lie near
    // sqrt(10000) +- sqrt(1000), a check that S belongs to A and not to some other matrix.
    expect(sv[0]).toBeGreaterThan(125);
    expect(sv[0]).toBeLessThan(137);
    expect(sv[N - 1]).toBeGreaterThan(63);
    expect(sv[N - 1]).toBeLessThan(75);

    expect(gramError(u)).toBeLessThan(1e-12);
    expect(gramError([transpose(vt)])).toBeLessThan(1e-12);

    // Frobenius estimate of E = A - U S V^T from Gaussian probes.
    const normA2 = (a.data as Float64Array).reduce((acc, x) => acc + x * x, 0);
    const probes = 16;
    const g = gaussianTestMatrix(probes, N, 99).data as Float64Array;
    let e2 = 0;
    for (let p = 0; p < probes; p++) {
      const x = g.subarray(p * N, (p + 1) * N);
      const ax = matvecBlocks(blocks, x);
      const svx = matvecBlocks([vt], x)[0].map((y, k) => y * sv[k]);
      const usvx = matvecBlocks(u, svx);
      ax.forEach((yb, bi) => yb.forEach((y, i) => (e2 += (y - usvx[bi][i]) ** 2)));
    }
    const estimate = Math.sqrt(e2 / probes / normA2);
    console.log(`||A - U S V^T||_F / ||A||_F ~ ${estimate.toExponential(2)}, ||U^T U - I||_F checked exactly`);
    expect(estimate).toBeLessThan(1e-13);

    // Exact entries of U S V^T on a spread of rows in every block.
    const vtd = vt.data as Float64Array;
    for (let bi = 0; bi < BLOCKS; bi++) {
      const ub = u[bi].data as Float64Array;
      const ab = blocks[bi].data as Float64Array;
      for (const i of [0, 333, 999]) {
        for (let j = 0; j < N; j += 7) {
          let x = 0;
          for (let k = 0; k < N; k++) x += ub[i * N + k] * sv[k] * vtd[k * N + j];
          expect(Math.abs(x - ab[i * N + j])).toBeLessThan(1e-12 * Math.sqrt(normA2 / (M * N)) * 100);
        }
      }
    }
  }, 300_000); // tens of seconds of arithmetic on one core, more on a loaded machine
});
