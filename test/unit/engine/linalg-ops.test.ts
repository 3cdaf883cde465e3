import { describe, expect, it } from 'vitest';
import { runLocal } from '../../helpers/local-run';

type Arr = { kind: 'array'; shape: number[]; data: number[] };
const arr = (v: unknown) => v as Arr;

function mul(a: Arr, b: Arr): number[] {
  const [m, k] = a.shape;
  const n = b.shape[1];
  const c = new Array<number>(m * n).fill(0);
  for (let i = 0; i < m; i++) for (let l = 0; l < k; l++) for (let j = 0; j < n; j++) c[i * n + j] += a.data[i * k + l] * b.data[l * n + j];
  return c;
}

const doc = (nodes: unknown[], edges: unknown[]) => ({ format: 'gpuflow.workflow/1', nodes, edges });
const e = (source: string, sourcePort: string, target: string, targetPort: string) => ({ source, sourcePort, target, targetPort });

describe('linear algebra nodes', () => {
  it('matmul contracts over mismatched chunks and matches a triple loop', async () => {
    const out = await runLocal(
      doc(
        [
          { id: 'a', op: 'random_uniform', params: { shape: [7, 5], chunks: [3, 2], seed: 1 } },
          { id: 'b', op: 'random_uniform', params: { shape: [5, 4], chunks: [3, 3], seed: 2 } },
          { id: 'c', op: 'matmul', params: {} },
          { id: 'a2', op: 'random_uniform', params: { shape: [7, 5], chunks: [7, 5], seed: 1 } },
          { id: 'b2', op: 'random_uniform', params: { shape: [5, 4], chunks: [5, 4], seed: 2 } },
        ],
        [e('a', 'out', 'c', 'a'), e('b', 'out', 'c', 'b')],
      ),
    );
    const want = mul(arr(out.a2), arr(out.b2));
    arr(out.c).data.forEach((x, i) => expect(x).toBeCloseTo(want[i], 12));
  });

  it('QR by TSQR: Q R = A, QᵀQ = I, R upper triangular with a non-negative diagonal', async () => {
    const out = await runLocal(
      doc(
        [
          { id: 'a', op: 'random_normal', params: { shape: [60, 6], chunks: [13, 4], seed: 3 } },
          { id: 'f', op: 'qr', params: {} },
          { id: 'q', op: 'unary', params: { op: 'neg' } },
          { id: 'r', op: 'unary', params: { op: 'neg' } },
        ],
        [e('a', 'out', 'f', 'x'), e('f', 'q', 'q', 'x'), e('f', 'r', 'r', 'x')],
      ),
    );
    const neg = (v: Arr): Arr => ({ ...v, data: v.data.map((x) => -x) });
    const q = neg(arr(out.q));
    const r = neg(arr(out.r));
    const a = await runLocal(doc([{ id: 'a', op: 'random_normal', params: { shape: [60, 6], chunks: [60, 6], seed: 3 } }], []));
    const qr = mul(q, r);
    arr(a.a).data.forEach((x, i) => expect(qr[i]).toBeCloseTo(x, 12));
    const qt: Arr = { kind: 'array', shape: [6, 60], data: [] };
    for (let j = 0; j < 6; j++) for (let i = 0; i < 60; i++) qt.data.push(q.data[i * 6 + j]);
    mul(qt, q).forEach((x, i) => expect(x).toBeCloseTo(i % 7 === 0 ? 1 : 0, 12));
    for (let i = 0; i < 6; i++) {
      expect(r.data[i * 6 + i]).toBeGreaterThanOrEqual(0);
      for (let j = 0; j < i; j++) expect(r.data[i * 6 + j]).toBe(0);
    }
  });

  it('SVD by TSQR recovers known singular values and reconstructs A', async () => {
    // A = diag-like: column j of arange scaled; check A = U diag(S) Vt and S descending.
    const out = await runLocal(
      doc(
        [
          { id: 'a', op: 'random_normal', params: { shape: [40, 5], chunks: [10, 5], seed: 9 } },
          { id: 'd', op: 'svd', params: {} },
        ],
        [e('a', 'out', 'd', 'x')],
      ),
    );
    const u = arr(out['d.u']);
    const s = arr(out['d.s']);
    const vt = arr(out['d.vt']);
    for (let i = 1; i < 5; i++) expect(s.data[i]).toBeLessThanOrEqual(s.data[i - 1]);
    const us: Arr = { kind: 'array', shape: u.shape, data: u.data.map((x, k) => x * s.data[k % 5]) };
    const rec = mul(us, vt);
    const a = await runLocal(doc([{ id: 'a', op: 'random_normal', params: { shape: [40, 5], chunks: [40, 5], seed: 9 } }], []));
    arr(a.a).data.forEach((x, i) => expect(rec[i]).toBeCloseTo(x, 11));
  });

  it('refuses a wide array for TSQR and misaligned matmul shapes, naming the node', async () => {
    await expect(runLocal(doc([{ id: 'a', op: 'zeros', params: { shape: [3, 8], chunks: [3, 8] } }, { id: 'f', op: 'qr', params: {} }], [e('a', 'out', 'f', 'x')]))).rejects.toThrow(
      /\(node 'f'\): needs a tall-skinny array \(rows >= columns\), got \(3, 8\)/,
    );
    await expect(
      runLocal(doc([{ id: 'a', op: 'zeros', params: { shape: [3, 8], chunks: [3, 8] } }, { id: 'c', op: 'matmul', params: {} }], [e('a', 'out', 'c', 'a'), e('a', 'out', 'c', 'b')])),
    ).rejects.toThrow(/\(node 'c'\): shapes \(3, 8\) and \(3, 8\) do not align: 8 != 3/);
  });
});
