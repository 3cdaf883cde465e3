// The compiler's one-device lowerings of the linear-algebra nodes (main/engine/ops/arrays-linalg.ts):
// with a cuda GPU worker that the data fits, svd / qr become one task over the row blocks and a
// matmul of generated inputs one gemm of single blocks; without one (CPU-only runs), too big,
// float32 or several GPUs, the block graphs stay. Values are checked against the block graphs'
// own (TSQR, blockwise contraction), run with the js kernels.
import { describe, expect, it } from 'vitest';
import type { TaskDef } from '../../../common/tasks';
import type { CompileOptions } from '../../../main/engine/compile/compile';
import { localTasks } from '../../helpers/local-tasks';

type Arr = { kind: 'array'; shape: number[]; data: number[] };
const doc = (nodes: unknown[], edges: unknown[]) => ({ format: 'gpuflow.workflow/1', nodes, edges });
const e = (source: string, sourcePort: string, target: string, targetPort: string) => ({ source, sourcePort, target, targetPort });
const gpu: CompileOptions = { device: { gpus: 1, bytes: 1e9 } };

const svdDoc = (dtype = 'float64', shape = [90, 7], chunks = [20, 7]) =>
  doc(
    [
      { id: 'x', op: 'random_normal', params: { shape, chunks, seed: 5, dtype } },
      { id: 'f', op: 'svd', params: {} },
    ],
    [e('x', 'out', 'f', 'x')],
  );

const ops = (tasks: Map<string, TaskDef>) => [...tasks.values()].map((t) => (t.spec.kind === 'array-op' ? t.spec.op : t.spec.kind));
const count = (tasks: Map<string, TaskDef>, op: string) => ops(tasks).filter((o) => o === op).length;

function maxDiff(a: Arr, b: Arr): number {
  expect(a.shape).toEqual(b.shape);
  return a.data.reduce((m, x, i) => Math.max(m, Math.abs(x - b.data[i])), 0);
}

describe('one-device linear algebra', () => {
  it('an svd that fits one cuda GPU is one task over the row blocks, with the TSQR answer', async () => {
    const one = await localTasks(svdDoc(), {}, gpu);
    expect(count(one.compiled.tasks, 'factor-whole')).toBe(1);
    expect(count(one.compiled.tasks, 'qr-block')).toBe(0);
    const f = [...one.compiled.tasks.values()].find((t) => t.spec.kind === 'array-op' && t.spec.op === 'factor-whole')!;
    expect(f.resource).toBe('gpu');
    expect(f.deps).toHaveLength(5); // 90 rows in blocks of 20: the blocks as they are, gathered by the task
    const tsqr = await localTasks(svdDoc());
    expect(count(tsqr.compiled.tasks, 'factor-whole')).toBe(0);
    expect(count(tsqr.compiled.tasks, 'qr-block')).toBe(5);
    const [a, b] = [await one.results(), await tsqr.results()];
    // The same sign rule on both paths: U, S, V^T agree entry by entry, to rounding.
    for (const port of ['u', 's', 'vt']) expect(maxDiff(a[`f.${port}`] as Arr, b[`f.${port}`] as Arr)).toBeLessThan(1e-12);
  });

  it('a qr that fits is one task too: Q R equal to TSQR, diag(R) >= 0', async () => {
    const qrDoc = doc(
      [
        { id: 'x', op: 'random_uniform', params: { shape: [40, 6], chunks: [15, 4], seed: 9 } },
        { id: 'f', op: 'qr', params: {} },
      ],
      [e('x', 'out', 'f', 'x')],
    );
    const one = await localTasks(qrDoc, {}, gpu);
    expect(count(one.compiled.tasks, 'factor-whole')).toBe(1);
    // Columns split in two: re-assembled into whole rows first.
    expect(count(one.compiled.tasks, 'assemble')).toBe(3);
    const [a, b] = [await one.results(), await (await localTasks(qrDoc)).results()];
    expect(maxDiff(a['f.q'] as Arr, b['f.q'] as Arr)).toBeLessThan(1e-12);
    expect(maxDiff(a['f.r'] as Arr, b['f.r'] as Arr)).toBeLessThan(1e-12);
    const r = a['f.r'] as Arr;
    for (let i = 0; i < 6; i++) expect(r.data[i * 6 + i]).toBeGreaterThanOrEqual(0);
  });

  it('keeps TSQR for CPU-only runs, float32, several GPUs and arrays beyond half a GPU', async () => {
    const tsqrOnly = async (d: unknown, opts: CompileOptions) => {
      const t = (await localTasks(d, {}, opts)).compiled.tasks;
      return [count(t, 'factor-whole'), count(t, 'qr-block') > 0];
    };
    expect(await tsqrOnly(svdDoc(), {})).toEqual([0, true]);
    expect(await tsqrOnly(svdDoc('float32'), gpu)).toEqual([0, true]);
    expect(await tsqrOnly(svdDoc(), { device: { gpus: 2, bytes: 1e9 } })).toEqual([0, true]);
    // 90 x 7 float64: 5 * 90 * 7 * 8 + 4 * 49 * 8 = 26768 bytes planned; the share is half the limit.
    expect(await tsqrOnly(svdDoc(), { device: { gpus: 1, bytes: 2 * 26768 - 1 } })).toEqual([0, true]);
    expect(await tsqrOnly(svdDoc(), { device: { gpus: 1, bytes: 2 * 26768 } })).toEqual([1, false]);
  });

  it('a matmul of generated inputs that fits one GPU is one gemm of single blocks, equal to the blockwise sum', async () => {
    const mmDoc = doc(
      [
        { id: 'a', op: 'random_uniform', params: { shape: [48, 40], chunks: [16, 16], seed: 1 } },
        { id: 'b', op: 'random_normal', params: { shape: [40, 24], chunks: [16, 8], seed: 2 } },
        { id: 'a2', op: 'scalar_op', params: { op: 'mul', value: 3 } },
        { id: 'c', op: 'matmul', params: {} },
        { id: 'total', op: 'reduce', params: { op: 'sum' } },
        { id: 'neg', op: 'unary', params: { op: 'neg' } },
      ],
      [e('a', 'out', 'a2', 'x'), e('a2', 'out', 'c', 'a'), e('b', 'out', 'c', 'b'), e('c', 'out', 'total', 'x'), e('c', 'out', 'neg', 'x')],
    );
    const one = await localTasks(mmDoc, {}, gpu);
    const mm = [...one.compiled.tasks.values()].filter((t) => t.spec.kind === 'array-op' && t.spec.op === 'matmul');
    expect(mm).toHaveLength(1);
    expect(mm[0].spec.kind === 'array-op' && mm[0].spec.params.k).toBe(1);
    expect(mm[0].resource).toBe('gpu');
    // A's and B's generators, the sum's partial and neg's block (beside the product and the sum's combine).
    expect(count(one.compiled.tasks, 'program')).toBeLessThanOrEqual(5);
    const blocks = await localTasks(mmDoc);
    expect(blocks.compiled.tasks.size).toBeGreaterThan(20);
    const [a, b] = [await one.results(), await blocks.results()];
    expect(maxDiff(a.neg as Arr, b.neg as Arr)).toBeLessThan(1e-12);
    const [ta, tb] = [a.total as { value: number }, b.total as { value: number }];
    expect(Math.abs(ta.value - tb.value)).toBeLessThan(1e-9 * Math.abs(tb.value) + 1e-9);
  });

  it('re-blocks sliced and combined generators for free: the same numbers as their own chunking', async () => {
    // A: a reversed, strided slice of a generator, through exp; B: the sum of two generators.
    const mmDoc = doc(
      [
        { id: 'g', op: 'random_normal', params: { shape: [70, 50], chunks: [9, 11], seed: 4 } },
        { id: 'a', op: 'slice', params: { slices: '2:-3:2, ::-2' } },
        { id: 'ea', op: 'unary', params: { op: 'exp' } },
        { id: 'b1', op: 'random_uniform', params: { shape: [25, 13], chunks: [6, 5], seed: 8 } },
        { id: 'b2', op: 'random_normal', params: { shape: [25, 13], chunks: [6, 5], seed: 9 } },
        { id: 'b', op: 'binary', params: { op: 'add' } },
        { id: 'c', op: 'matmul', params: {} },
      ],
      [e('g', 'out', 'a', 'x'), e('a', 'out', 'ea', 'x'), e('b1', 'out', 'b', 'a'), e('b2', 'out', 'b', 'b'), e('ea', 'out', 'c', 'a'), e('b', 'out', 'c', 'b')],
    );
    const one = await localTasks(mmDoc, {}, gpu);
    expect(count(one.compiled.tasks, 'matmul')).toBe(1);
    const [a, b] = [await one.results(), await (await localTasks(mmDoc)).results()];
    expect((a.c as Arr).shape).toEqual([33, 13]);
    expect(maxDiff(a.c as Arr, b.c as Arr)).toBeLessThan(1e-11);
  });

  it('a matmul whose input reads task outputs in several blocks keeps its blocks', async () => {
    const mmDoc = doc(
      [
        { id: 'a', op: 'random_uniform', params: { shape: [30, 30], chunks: [10, 10], seed: 1 } },
        { id: 'b', op: 'random_uniform', params: { shape: [30, 30], chunks: [10, 10], seed: 2 } },
        { id: 'cs', op: 'cumsum', params: { axis: 0 } },
        { id: 'c', op: 'matmul', params: {} },
      ],
      [e('a', 'out', 'cs', 'x'), e('cs', 'out', 'c', 'a'), e('b', 'out', 'c', 'b')],
    );
    // cumsum's blocks are task outputs: re-blocking them would cost a copy, so the product stays blockwise.
    const t = (await localTasks(mmDoc, {}, gpu)).compiled.tasks;
    const mm = [...t.values()].filter((x) => x.spec.kind === 'array-op' && x.spec.op === 'matmul');
    expect(mm).toHaveLength(9);
    expect(mm.every((x) => x.resource === 'any')).toBe(true);
  });
});
