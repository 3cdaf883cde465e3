/**
 * svd_randomized as a task graph: exact (to rounding) on a planted rank-4 matrix built in the
 * workflow as the product of two random arrays, and within a tolerance of the full SVD's top
 * singular values on a rank-4 matrix plus small noise. Orthonormality of U and Vᵀ is checked
 * directly; the full SVD (svd node, TSQR) is the independent oracle for S.
 */
import { describe, expect, it } from 'vitest';
import { localTasks } from '../../helpers/local-tasks';

type Arr = { kind: 'array'; shape: number[]; data: number[] };
const e = (source: string, sourcePort: string, target: string, targetPort: string) => ({ source, sourcePort, target, targetPort });

function gram(a: Arr, byRows: boolean): number {
  const [m, n] = a.shape;
  const k = byRows ? m : n;
  let err = 0;
  for (let p = 0; p < k; p++) {
    for (let q = 0; q < k; q++) {
      let s = 0;
      if (byRows) for (let j = 0; j < n; j++) s += a.data[p * n + j] * a.data[q * n + j];
      else for (let i = 0; i < m; i++) s += a.data[i * n + p] * a.data[i * n + q];
      err = Math.max(err, Math.abs(s - (p === q ? 1 : 0)));
    }
  }
  return err;
}

function planted(noise: number) {
  return {
    format: 'gpuflow.workflow/1',
    nodes: [
      { id: 'x', op: 'random_normal', params: { shape: [300, 4], chunks: [70, 4], seed: 1 } },
      { id: 'w', op: 'random_normal', params: { shape: [4, 60], chunks: [4, 25], seed: 2 } },
      { id: 'lr', op: 'matmul', params: {} },
      { id: 'n', op: 'random_normal', params: { shape: [300, 60], chunks: [70, 25], seed: 3, std: noise } },
      { id: 'a', op: 'binary', params: { op: 'add' } },
      { id: 'r', op: 'svd_randomized', params: { rank: 4, oversample: 6, power_iters: 2, seed: 7 } },
      { id: 'full', op: 'svd', params: {} },
      { id: 'copy', op: 'unary', params: { op: 'neg' } },
    ],
    edges: [e('x', 'out', 'lr', 'a'), e('w', 'out', 'lr', 'b'), e('lr', 'out', 'a', 'a'), e('n', 'out', 'a', 'b'), e('a', 'out', 'r', 'x'), e('a', 'out', 'full', 'x'), e('a', 'out', 'copy', 'x')],
  };
}

describe('svd_randomized', () => {
  it('recovers a planted rank-4 matrix exactly: U S Vᵀ = A, orthonormal factors, S = the full SVD\'s', async () => {
    const run = await localTasks(planted(0));
    const out = await run.results();
    const u = out['r.u'] as Arr;
    const s = out['r.s'] as Arr;
    const vt = out['r.vt'] as Arr;
    const a = (out.copy as Arr).data.map((x) => -x);
    expect(u.shape).toEqual([300, 4]);
    expect(vt.shape).toEqual([4, 60]);
    let err = 0;
    let norm = 0;
    for (let i = 0; i < 300; i++) {
      for (let j = 0; j < 60; j++) {
        let x = 0;
        for (let k = 0; k < 4; k++) x += u.data[i * 4 + k] * s.data[k] * vt.data[k * 60 + j];
        err += (x - a[i * 60 + j]) ** 2;
        norm += a[i * 60 + j] ** 2;
      }
    }
    expect(Math.sqrt(err / norm)).toBeLessThan(1e-13);
    expect(gram(u, false)).toBeLessThan(1e-13);
    expect(gram(vt, true)).toBeLessThan(1e-13);
    const full = (out['full.s'] as Arr).data;
    s.data.forEach((x, k) => expect(Math.abs(x - full[k]) / full[0]).toBeLessThan(1e-13));
    expect(full[4] / full[0]).toBeLessThan(1e-13); // it is rank 4
    // The graph is per row block: sketch, 3 TSQRs (sketch + 2 power iterations), U per block.
    const ops = [...run.compiled.tasks.values()].filter((t) => t.node === 'r').map((t) => t.op);
    expect(ops.filter((o) => o === 'rs-sketch')).toHaveLength(5); // rows 70, 70, 70, 70, 20
    expect(ops.filter((o) => o === 'qr-top')).toHaveLength(3);
    expect(ops.filter((o) => o === 'rs-u')).toHaveLength(5);
  }, 60_000);

  it('is within 1e-6 of the full SVD\'s top values with noise, the orthonormal U', async () => {
    const out = await (await localTasks(planted(1e-3))).results();
    const s = (out['r.s'] as Arr).data;
    const full = (out['full.s'] as Arr).data;
    s.forEach((x, k) => expect(Math.abs(x - full[k]) / full[k]).toBeLessThan(1e-6));
    expect(gram(out['r.u'] as Arr, false)).toBeLessThan(1e-13);
  }, 60_000);

  it('refuses a rank above min(m, n) and a 1-D input, naming node and field', async () => {
    const doc = (shape: number[], rank: number) => ({
      format: 'gpuflow.workflow/1',
      nodes: [
        { id: 'a', op: 'random_normal', params: { shape, chunks: shape } },
        { id: 'r', op: 'svd_randomized', params: { rank } },
      ],
      edges: [e('a', 'out', 'r', 'x')],
    });
    await expect(localTasks(doc([20, 5], 6))).rejects.toThrow(/params\.rank.*'r'.*at most min\(m, n\) = 5/);
    await expect(localTasks(doc([20], 1))).rejects.toThrow(/inputs\.x.*2-D/);
  });
});
