// Matmul of generated operands on several GPU workers (main/engine/ops/arrays-linalg.ts
// rowPanelOperands): A in one row panel per GPU, B made again on each, one k=1 product per panel
// placed with its panel, so no operand is read by a task of another GPU. Products of at least
// 2^30 multiply-adds only (PANEL_MIN_MACS). The product's value is checked against a triple loop
// over the operands its tasks generated (js kernels, float64).
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
  it('four GPU workers: four k=1 products, each reading its own panel and its own copy of B, equal to a triple loop', async () => {
    // 1030 x 1024 x 1024: just over 2^30 multiply-adds.
    const doc = mm(1030, 1024, 1024, 256);
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
    // 1030 rows in panels of ceil(1030 / 4) = 258.
    expect(ps.map((t) => t.outBytes / (1024 * 8))).toEqual([258, 258, 258, 256]);

    const arrayOf = async (key: string) => {
      const v = await panels.value(key);
      if (v.kind !== 'array') throw new Error(`${key} is not an array`);
      return v.array;
    };
    // The last panel's product (rows 774-1029; the js gemm is slow, so one panel), over the operands
    // as their tasks made them: A's panel 3, and B, whose copies on GPUs 0 and 3 are the same numbers.
    const last = await arrayOf(ps[3].key);
    const [a3, b0, b3] = await Promise.all([arrayOf(ps[3].deps[0]), arrayOf(ps[0].deps[1]), arrayOf(ps[3].deps[1])]);
    expect(b3.data.length).toBe(b0.data.length);
    expect(b3.data.every((x, i) => x === b0.data[i])).toBe(true);
    expect([a3.shape, b0.shape, last.shape]).toEqual([[256, 1024], [1024, 1024], [256, 1024]]);
    const [av, bv, cv] = [Float64Array.from(a3.data, Number), Float64Array.from(b0.data, Number), Float64Array.from(last.data, Number)];
    const dot = (i: number, j: number) => {
      let s = 0;
      for (let l = 0; l < 1024; l++) s += av[i * 1024 + l] * bv[l * 1024 + j];
      return s;
    };
    for (const [i, j] of [[0, 7], [255, 0], [128, 1000]]) expect(cv[i * 1024 + j]).toBeCloseTo(dot(i, j), 9);
  }, 60_000);

  it('a product under 2^30 multiply-adds keeps the block graph', async () => {
    const small = await localTasks(mm(1023, 1024, 1024, 256), {}, { gpuShare: { gpus: 4, taskElements: 2 ** 20 } });
    expect(products(small.compiled.tasks)).toHaveLength(16);
  });

  it('keeps the block graph for one GPU, no GPU, coarsening off, and operands that read task outputs', async () => {
    const one = await localTasks(mm(1030, 1024, 1024, 256), {}, { gpuShare: { gpus: 1, taskElements: 2 ** 20 } });
    expect(products(one.compiled.tasks)).toHaveLength(20);
    const off = await localTasks(mm(1030, 1024, 1024, 256), {}, { gpuShare: { gpus: 0, taskElements: 0 } });
    expect(products(off.compiled.tasks)).toHaveLength(20);
    const fed = mm(1030, 1024, 1024, 256);
    fed.nodes.push({ id: 's', op: 'cumsum', params: { axis: 0 } } as (typeof fed.nodes)[number]);
    fed.edges = [e('a', 'out', 's', 'x'), e('s', 'out', 'c', 'a'), e('b', 'out', 'c', 'b')];
    const scanned = await localTasks(fed, {}, { gpuShare: { gpus: 4, taskElements: 2 ** 20 } });
    expect(products(scanned.compiled.tasks).length).toBeGreaterThan(4);
  });

  it('a cuda B too big for half a GPU keeps the block graph', async () => {
    const big = await localTasks(mm(1030, 1024, 1024, 256), {}, { gpuShare: { gpus: 4, taskElements: 2 ** 30 }, device: { gpus: 4, bytes: 1024 * 1024 * 8 }, arrayResource: 'gpu' });
    expect(products(big.compiled.tasks)).toHaveLength(20);
    const fits = await localTasks(mm(1030, 1024, 1024, 256), {}, { gpuShare: { gpus: 4, taskElements: 2 ** 30 }, device: { gpus: 4, bytes: 1e9 }, arrayResource: 'gpu' });
    expect(products(fits.compiled.tasks).map((t) => t.resource)).toEqual(['gpu', 'gpu', 'gpu', 'gpu']);
  });
});
