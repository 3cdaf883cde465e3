import { describe, expect, it } from 'vitest';
import { chain, runLocal } from '../../helpers/local-run';

const data = (r: { kind: string; data?: number[] } | undefined) => (r && r.kind === 'array' ? r.data : undefined);

describe('array nodes (hand-computed values)', () => {
  it('arange, scalar ops and a chunked sum', async () => {
    const out = await runLocal(chain(['a', 'arange', { start: 0, stop: 10, chunks: 3 }], ['m', 'scalar_op', { op: 'mul', value: 2 }], ['s', 'reduce', { op: 'sum', split_every: 2 }]));
    expect(out.s).toEqual({ kind: 'scalar', dtype: 'float64', value: 90 });
  });

  it('round goes to the nearest integer, halves to the even one (numpy.round(np.arange(-6, 6) * 0.5))', async () => {
    const out = await runLocal(chain(['a', 'arange', { start: -6, stop: 6, chunks: 5 }], ['h', 'scalar_op', { op: 'mul', value: 0.5 }], ['r', 'unary', { op: 'round' }]));
    expect(data(out.r as never)).toEqual([-3, -2, -2, -2, -1, -0, 0, 0, 1, 2, 2, 2]);
  });

  it('linspace matches numpy.linspace(0, 1, 5)', async () => {
    const out = await runLocal(chain(['l', 'linspace', { start: 0, stop: 1, num: 5, chunks: 2 }]));
    expect(data(out.l as never)).toEqual([0, 0.25, 0.5, 0.75, 1]);
  });

  it('broadcasts a row against a matrix with different chunks', async () => {
    const doc = {
      format: 'gpuflow.workflow/1',
      nodes: [
        { id: 'm', op: 'arange', params: { start: 0, stop: 6, chunks: 4 } },
        { id: 'row', op: 'full', params: { shape: [3], chunks: [2], value: 10 } },
        { id: 'z', op: 'zeros', params: { shape: [2, 3], chunks: [1, 2] } },
        { id: 'zr', op: 'binary', params: { op: 'add' } },
        { id: 'sum', op: 'binary', params: { op: 'sub' } },
      ],
      edges: [
        { source: 'z', sourcePort: 'out', target: 'zr', targetPort: 'a' },
        { source: 'row', sourcePort: 'out', target: 'zr', targetPort: 'b' },
        { source: 'zr', sourcePort: 'out', target: 'sum', targetPort: 'a' },
        { source: 'm', sourcePort: 'out', target: 'sum', targetPort: 'b' },
      ],
    };
    // m has shape (6,), which does not broadcast with (2, 3): the error names the node and shapes.
    await expect(runLocal(doc)).rejects.toThrow(/nodes\[4\]\.inputs\.b \(node 'sum'\): shapes \(2, 3\) and \(6\) cannot be broadcast together/);
    doc.nodes[0] = { id: 'm', op: 'arange', params: { start: 0, stop: 3, chunks: 1 } };
    const out = await runLocal(doc);
    // zeros(2,3) + 10 - [0, 1, 2]
    expect(data(out.sum as never)).toEqual([10, 9, 8, 10, 9, 8]);
  });

  it('unary, clip, rechunk and transpose', async () => {
    const out = await runLocal(
      chain(
        ['a', 'arange', { start: -3, stop: 3, chunks: 4 }],
        ['sq', 'unary', { op: 'square' }],
        ['c', 'clip', { min: 1, max: 4 }],
        ['r', 'rechunk', { chunks: [5] }],
      ),
    );
    expect(data(out.r as never)).toEqual([4, 4, 1, 1, 1, 4]);
    const t = await runLocal(chain(['z', 'random_uniform', { shape: [3, 4], chunks: [2, 3], seed: 5 }], ['t', 'transpose', {}]));
    const u = await runLocal(chain(['z', 'random_uniform', { shape: [3, 4], chunks: [3, 4], seed: 5 }]));
    const tt = data(t.t as never)!;
    const uu = data(u.z as never)!;
    for (let i = 0; i < 3; i++) for (let j = 0; j < 4; j++) expect(tt[j * 3 + i]).toBe(uu[i * 4 + j]);
  });

  it('gives bit-identical random values for chunks (1000,1000), (333,250) and (1000,1)', async () => {
    const runs = await Promise.all(
      [
        [1000, 1000],
        [333, 250],
        [1000, 1],
      ].map((chunks) => runLocal(chain(['x', 'random_normal', { shape: [1000, 1000], chunks, seed: 42 }]))),
    );
    const [a, b, c] = runs.map((r) => data(r.x as never)!);
    expect(a.length).toBe(1e6);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });
});
