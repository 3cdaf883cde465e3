// Matmul of generated operands on several GPU workers (main/engine/ops/arrays-linalg.ts
// rowPanelOperands): A in one row panel per GPU, B made again on each, one k=1 product per panel
// placed with its panel, so no operand is read by a task of another GPU. The product's value is
// checked against the SUMMA block graph of a CPU-only compile (js kernels, float64: the same
// numbers to rounding) and against a triple loop of the generated values.
import { describe, expect, it } from 'vitest';
import type { TaskDef } from '../../../common/tasks';
import { localTasks } from '../../helpers/local-tasks';

type Arr = { kind: 'array'; shape: number[]; data: number[] };
const e = (source: string, sourcePort: string, target: string, targetPort: string) => ({ source, sourcePort, target, targetPort });
const mm = (m: number, k: number, n: number, chunks: number, dtype = 'float64') => ({
  format: 'gpuflow.workflow/1',
  nodes: [
    { id: 'a', op: 'random_uniform', params: { shape: [m, k], chunks: [chunks, chunks], seed: 3, dtype } },
    { id: 'b', op: 'random_uniform', params: { shape: [k, n], chunks: [chunks, chunks], seed: 4, dtype } },
    { id: 'c', op: 'matmul', params: {} },
  ],
  edges: [e('a', 'out', 'c', 'a'), e('b', 'out', 'c', 'b')],
});

const products = (tasks: Map<string, TaskDef>) => [...tasks.values()].filter((t) => t.spec.kind === 'array-op' && t.spec.op === 'matmul');

describe('matmul in row panels on several GPU workers', () => {
  it('four GPU workers: four k=1 products, each reading its own panel and its own copy of B, equal to the block graph', async () => {
    const doc = mm(50, 30, 20, 8);
    const panels = await localTasks(doc, {}, { gpuShare: { gpus: 4, taskElements: 2 ** 20 } });
    const ps = products(panels.compiled.tasks);
    expect(ps).toHaveLength(4);
    const seen = new Set<string>();
    ps.forEach((t, g) => {
      expect(t.spec.kind === 'array-op' && t.spec.params).toEqual({ k: 1 });
      expect(t.place).toEqual({ index: g });
      expect(t.deps).toHaveLength(2);
      // Both operands are made where the product runs (the same 1-D place), and no two products share one.
      for (const d of t.deps) {
        expect(panels.compiled.tasks.get(d)!.place).toEqual({ index: g });
        expect(seen.has(d)).toBe(false);
        seen.add(d);
      }
    });
    // 50 rows in panels of ceil(50 / 4) = 13.
    expect(ps.map((t) => t.outBytes / (20 * 8))).toEqual([13, 13, 13, 11]);

    const blocks = await localTasks(doc);
    expect(products(blocks.compiled.tasks)).toHaveLength(7 * 3);
    const [p, b] = [(await panels.results())['c'] as Arr, (await blocks.results())['c'] as Arr];
    expect(p.shape).toEqual([50, 20]);
    const a = (await localTasks({ ...doc, nodes: doc.nodes.slice(0, 1), edges: [] })).results();
    const bb = (await localTasks({ ...doc, nodes: doc.nodes.slice(1, 2), edges: [] })).results();
    const [av, bv] = [((await a)['a'] as Arr).data, ((await bb)['b'] as Arr).data];
    for (const [i, j] of [[0, 0], [12, 19], [13, 0], [49, 7], [38, 11]]) {
      let s = 0;
      for (let l = 0; l < 30; l++) s += av[i * 30 + l] * bv[l * 20 + j];
      expect(p.data[i * 20 + j]).toBeCloseTo(s, 12);
    }
    expect(p.data.every((x, i) => Math.abs(x - b.data[i]) < 1e-12)).toBe(true);
  });

  it('keeps the block graph for one GPU, no GPU, coarsening off, and operands that read task outputs', async () => {
    const one = await localTasks(mm(50, 30, 20, 8), {}, { gpuShare: { gpus: 1, taskElements: 2 ** 20 } });
    expect(products(one.compiled.tasks)).toHaveLength(21);
    const off = await localTasks(mm(50, 30, 20, 8), {}, { gpuShare: { gpus: 0, taskElements: 0 } });
    expect(products(off.compiled.tasks)).toHaveLength(21);
    const fed = mm(50, 30, 20, 8);
    fed.nodes.push({ id: 's', op: 'cumsum', params: { axis: 0 } } as (typeof fed.nodes)[number]);
    fed.edges = [e('a', 'out', 's', 'x'), e('s', 'out', 'c', 'a'), e('b', 'out', 'c', 'b')];
    const scanned = await localTasks(fed, {}, { gpuShare: { gpus: 4, taskElements: 2 ** 20 } });
    expect(products(scanned.compiled.tasks).length).toBeGreaterThan(4);
  });

  it('a cuda B too big for half a GPU keeps the block graph', async () => {
    const big = await localTasks(mm(64, 64, 64, 16), {}, { gpuShare: { gpus: 4, taskElements: 2 ** 30 }, device: { gpus: 4, bytes: 64 * 64 * 8 }, arrayResource: 'gpu' });
    expect(products(big.compiled.tasks)).toHaveLength(16);
    const fits = await localTasks(mm(64, 64, 64, 16), {}, { gpuShare: { gpus: 4, taskElements: 2 ** 30 }, device: { gpus: 4, bytes: 1e9 }, arrayResource: 'gpu' });
    expect(products(fits.compiled.tasks).map((t) => t.resource)).toEqual(['gpu', 'gpu', 'gpu', 'gpu']);
  });
});
