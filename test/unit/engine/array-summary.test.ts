/**
 * Large outputs are summarised on the workers (main/engine/compile/summary-lower.ts): a
 * 2000 x 1000 array over a lowered wholeArrayLimit compiles to summary tasks, no block is an
 * output, and the summary is checked against hand-computed values: the array is its own flat
 * index, 1000 i + j, so min 0, max 1999999, mean 999999.5, 100000 values in each of 20 bins,
 * and corner[i][j] = 1000 i + j.
 */
import { describe, expect, it } from 'vitest';
import type { ArraySummary } from '../../../common/results';
import { localTasks } from '../../helpers/local-tasks';

const e = (source: string, target: string, targetPort: string) => ({ source, sourcePort: 'out', target, targetPort });
// rows(i, j) = i via zeros(1000, 2000) + arange(2000), transposed; then * 1000 + arange(1000).
const flatIndex = (chunks: number[]) => ({
  format: 'gpuflow.workflow/1',
  nodes: [
    { id: 'z', op: 'zeros', params: { shape: [1000, 2000], chunks: [chunks[1], chunks[0]] } },
    { id: 'r', op: 'arange', params: { stop: 2000, chunks: chunks[0] } },
    { id: 'zr', op: 'binary', params: { op: 'add' } },
    { id: 't', op: 'transpose', params: {} },
    { id: 'k', op: 'scalar_op', params: { op: 'mul', value: 1000 } },
    { id: 'c', op: 'arange', params: { stop: 1000, chunks: chunks[1] } },
    { id: 'x', op: 'binary', params: { op: 'add' } },
  ],
  edges: [e('z', 'zr', 'a'), e('r', 'zr', 'b'), e('zr', 't', 'x'), e('t', 'k', 'x'), e('k', 'x', 'a'), e('c', 'x', 'b')],
});

describe('array summaries computed on the workers', () => {
  it.each([[[500, 400]], [[6, 1000]]])('2000 x 1000 in chunks %j: hand-computed min, max, mean, histogram, corner', async (chunks) => {
    const run = await localTasks(flatIndex(chunks), {}, { wholeArrayLimit: 1_000_000 });
    const o = run.compiled.outputs.x;
    expect(o).toMatchObject({ kind: 'array-summary', shape: [2000, 1000], dtype: 'float64' });
    const ops = [...run.compiled.tasks.values()].map((t) => t.op);
    const blocks = Math.ceil(2000 / chunks[0]) * Math.ceil(1000 / chunks[1]);
    expect(ops.filter((op) => op === 'summary-stats')).toHaveLength(blocks);
    expect(ops.filter((op) => op === 'summary-hist')).toHaveLength(blocks);
    const r = (await run.results()).x;
    expect(r.kind === 'array' && r.data).toBeFalsy();
    const s = (r as { summary: ArraySummary }).summary;
    expect(s.min).toBe(0);
    expect(s.max).toBe(1_999_999);
    expect(s.mean).toBeCloseTo(999_999.5, 6);
    expect(s.histogram).toEqual({ bins: 20, counts: new Array(20).fill(100_000) });
    expect(s.corner.shape).toEqual([8, 8]);
    expect(s.corner.data).toEqual(Array.from({ length: 64 }, (_, k) => 1000 * Math.floor(k / 8) + (k % 8)));
  }, 60_000);

  it('small arrays still come back whole, with the same summary fields', async () => {
    const run = await localTasks(flatIndex([500, 400]), {}, { wholeArrayLimit: 3_000_000 });
    expect(run.compiled.outputs.x.kind).toBe('array');
  });

  it('a corner smaller than the chunks, NaN skipped by min/max/histogram and carried by the mean', async () => {
    const doc = {
      format: 'gpuflow.workflow/1',
      nodes: [
        { id: 'a', op: 'arange', params: { start: -2, stop: 3, chunks: 2 } },
        { id: 'l', op: 'unary', params: { op: 'log' } },
      ],
      edges: [e('a', 'l', 'x')],
    };
    const s = ((await (await localTasks(doc, {}, { wholeArrayLimit: 2 })).results()).l as { summary: ArraySummary }).summary;
    // log of [-2, -1, 0, 1, 2] = [NaN, NaN, -Inf, 0, ln 2]
    expect(s.min).toBe(-Infinity);
    expect(s.max).toBe(Math.LN2);
    expect(s.mean).toBeNaN();
    expect(s.corner).toEqual({ shape: [5], data: [NaN, NaN, -Infinity, 0, Math.LN2] });
  });
});
