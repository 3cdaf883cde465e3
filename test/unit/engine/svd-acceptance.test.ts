/**
 * Issue 3's acceptance property, through the svd NODE: the SVD of a 10000 x 1000 float64 array
 * (random_normal in 10 row blocks -> svd, compiled and run task by task with the js kernels) has
 * ||A - U S V^T|| / ||A|| < 1e-12 and ||U^T U - I|| < 1e-12 (Frobenius norms). It replaces the
 * kernel-only version (same steps, called by hand) so the suite pays for this SVD once.
 *
 * U^T U is computed exactly (every entry). ||A - U S V^T||_F would cost as much as the SVD itself,
 * so it is estimated from Gaussian probes g (E||E g||^2 = ||E||_F^2 for E = A - U S V^T) and the
 * estimate must be 10x below the bound: with 16 probes an underestimate by 10x has probability
 * below 1e-15. Sampled rows of U S V^T are also checked exactly, entry by entry.
 * The run takes tens of seconds on one core; bench/arrays/linalg.ts measures it.
 */
import { describe, expect, it } from 'vitest';
import type { ChunkValue, NDArray } from '../../../common/arrays';
import { gemmNT } from '../../../worker/kernels/js/linalg/gemm-nt';
import { gaussianTestMatrix } from '../../../worker/kernels/js/linalg/randomized';
import { transpose } from '../../../worker/kernels/js/linalg/transpose';
import { localTasks } from '../../helpers/local-tasks';

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

const arrayOf = (v: ChunkValue): NDArray => {
  if (v.kind !== 'array') throw new Error(`expected an array, got a ${v.kind}`);
  return v.array;
};

describe('SVD node on a 10000 x 1000 float64 array (TSQR over 10 row blocks)', () => {
  it('reconstructs A to 1e-12 with orthonormal U', async () => {
    const doc = {
      format: 'gpuflow.workflow/1',
      nodes: [
        { id: 'a', op: 'random_normal', params: { shape: [M, N], chunks: [M / BLOCKS, N], seed: 2024 } },
        { id: 'd', op: 'svd', params: {} },
      ],
      edges: [{ source: 'a', sourcePort: 'out', target: 'd', targetPort: 'x' }],
    };
    // Outputs whole (no summary) so U's blocks are task outputs to read.
    const run = await localTasks(doc, {}, { wholeArrayLimit: Infinity });
    const outU = run.compiled.outputs['d.u'];
    if (outU.kind !== 'array') throw new Error('d.u should be a whole array output');
    expect(outU.keys).toHaveLength(BLOCKS);
    const t0 = performance.now();
    const u = await Promise.all(outU.keys.map(async (k) => arrayOf(await run.value(k))));
    const key = (name: string) => {
      const o = run.compiled.outputs[name];
      if (o.kind !== 'array') throw new Error(`${name} should be a whole array output`);
      return o.keys[0];
    };
    const s = arrayOf(await run.value(key('d.s')));
    const vt = arrayOf(await run.value(key('d.vt')));
    console.log(`svd node on ${M} x ${N}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // A's row blocks as the svd node's tasks made them (already computed, memoised).
    const blocks = await Promise.all(Array.from({ length: BLOCKS }, async (_, i) => arrayOf(await run.value(`d/a(${i},0)`))));
    const normA2 = blocks.reduce((acc, b) => acc + (b.data as Float64Array).reduce((t, x) => t + x * x, 0), 0);

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
