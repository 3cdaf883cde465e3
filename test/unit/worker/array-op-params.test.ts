/**
 * Typed array-op params (common/array-op-params.ts): what main's compiler emits parses with the
 * schema the worker's handler is registered with, and a task whose params do not match is refused
 * at the worker's boundary with the op and the field named, instead of computing with undefined.
 */
import { describe, expect, it } from 'vitest';
import { isTypedArrayOp, parseArrayOpParams } from '../../../common/array-op-params';
import type { ChunkValue } from '../../../common/arrays';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { findHandler, type HandlerContext } from '../../../worker/handlers';
import '../../../worker/kernels/arrays/register';
import { chain } from '../../helpers/local-run';

const ctx: HandlerContext = {
  config: { id: 'cpu0', kind: 'cpu', label: 'cpu0', threads: 1, concurrency: 1, memoryLimit: 2 ** 30, peerToken: 'a-token-of-16-chars', backends: ['js'], heartbeatMs: 1000 },
  backends: [],
  report: () => undefined,
};
const block = (data: number[], shape: number[]): ChunkValue => ({ kind: 'array', array: { dtype: 'float64', shape, data: Float64Array.from(data) } });

describe('typed array-op params', () => {
  it("main's rechunk and transpose tasks carry params their worker schema accepts", () => {
    const wf = validateWorkflow(chain(['a', 'arange', { start: 0, stop: 12, chunks: 4 }], ['r', 'rechunk', { chunks: [5] }]));
    const specs = [...compileWorkflow(wf).tasks.values()].map((t) => t.spec).filter((s) => s.kind === 'array-op');
    expect(specs.map((s) => s.op)).toEqual(['assemble', 'assemble', 'assemble']);
    for (const s of specs) if (s.kind === 'array-op' && s.op === 'assemble') expect(parseArrayOpParams('assemble', s.params).shape.length).toBe(1);
    // The middle block [5, 10) takes [1, 4) of block 1 and [0, 2) of block 2 (chunks of 4).
    const middle = specs[1];
    expect(middle.kind === 'array-op' && parseArrayOpParams('assemble', middle.params).pieces).toEqual([
      { dep: 0, srcStart: [1], count: [3], dstStart: [0] },
      { dep: 1, srcStart: [0], count: [2], dstStart: [3] },
    ]);
  });

  it("every typed op main emits parses with its schema: rechunk, transpose, the randomized SVD's tasks", () => {
    const doc = {
      format: 'gpuflow.workflow/1',
      nodes: [
        { id: 'x', op: 'random_normal', params: { shape: [60, 12], chunks: [25, 5], seed: 1 } },
        { id: 't', op: 'transpose', params: {} },
        { id: 'r', op: 'svd_randomized', params: { rank: 3, oversample: 2, power_iters: 1, seed: 7 } },
      ],
      edges: [
        { source: 'x', sourcePort: 'out', target: 't', targetPort: 'x' },
        { source: 'x', sourcePort: 'out', target: 'r', targetPort: 'x' },
      ],
    };
    const seen = new Set<string>();
    for (const t of compileWorkflow(validateWorkflow(doc)).tasks.values()) {
      const spec = t.spec;
      if (spec.kind !== 'array-op' || !isTypedArrayOp(spec.op)) continue;
      const op = spec.op;
      expect(() => parseArrayOpParams(op, spec.params), `${t.key} (${op})`).not.toThrow();
      seen.add(op);
    }
    expect([...seen].sort()).toEqual(['assemble', 'pick', 'qr-block', 'qr-combine', 'qr-top', 'rs-mm', 'rs-sketch', 'rs-sum', 'rs-u', 'transpose']);
  });

  it('every array op main emits is typed and parses: linalg, scans, reshape, histogram, percentile, summaries', () => {
    const n = (id: string, op: string, params: Record<string, unknown>) => ({ id, op, params });
    const e = (source: string, target: string, targetPort = 'x') => ({ source, sourcePort: 'out', target, targetPort });
    const doc = {
      format: 'gpuflow.workflow/1',
      nodes: [
        n('x', 'random_normal', { shape: [40, 6], chunks: [10, 3], seed: 1 }),
        n('mm', 'matmul', {}),
        n('q', 'qr', {}),
        n('s', 'svd', {}),
        n('c', 'cumsum', { axis: 0 }),
        n('r', 'reshape', { shape: [6, 40] }),
        n('h', 'histogram', { bins: 4, range: [-1, 1] }),
        n('p', 'percentile', { q: [25, 75] }),
      ],
      edges: [e('x', 'mm', 'a'), e('x', 'mm', 'b'), e('x', 'q'), e('x', 's'), e('x', 'c'), e('x', 'r'), e('x', 'h'), e('x', 'p')],
    };
    // mm gets x @ x of a 40 x 6 array: a shape error; transpose's output makes it 6 x 40 @ 40 x 6.
    doc.nodes.push(n('t', 'transpose', {}));
    doc.edges[0] = e('t', 'mm', 'a');
    doc.edges.push(e('x', 't'));
    const seen = new Set<string>();
    // A whole-array limit of 10 elements reports the 40 x 6 outputs as summaries (their tasks too).
    for (const t of compileWorkflow(validateWorkflow(doc), { wholeArrayLimit: 10 }).tasks.values()) {
      const spec = t.spec;
      if (spec.kind !== 'array-op') continue;
      const op = spec.op;
      expect(isTypedArrayOp(op), `${t.key}: array op '${op}' has no params schema`).toBe(true);
      if (isTypedArrayOp(op)) expect(() => parseArrayOpParams(op, spec.params), `${t.key} (${op})`).not.toThrow();
      seen.add(op);
    }
    for (const op of ['matmul', 'qr-block', 'qr-top', 'qr-combine', 'pick', 'cumulate', 'reshape', 'histogram', 'histogram-edges', 'percentile', 'summary-stats', 'summary-hist', 'summary-bundle']) {
      expect(seen, op).toContain(op);
    }
  });

  it('histogram, percentile and pick run on parsed params (counts and values by hand)', async () => {
    const counts = await findHandler('array-op', 'histogram')?.({ bins: 2, lo: 0, hi: 1 }, [block([0, 0.5, 1, 0.2, 3], [5])], ctx);
    // [0, 0.5) holds 0 and 0.2; [0.5, 1] holds 0.5 and 1 (the last bin is closed); 3 is outside.
    expect(counts?.value.kind === 'array' && counts.value.array.data).toEqual(BigInt64Array.from([2n, 2n]));
    const p = await findHandler('array-op', 'percentile')?.({ q: [0.5, 0.25] }, [block([4, 1], [2]), block([3, 2], [2])], ctx);
    // Sorted 1 2 3 4: the median at h = 1.5 is 2.5, the 25th percentile at h = 0.75 is 1.75.
    expect(p?.value.kind === 'array' && p.value.array.data).toEqual(Float64Array.from([2.5, 1.75]));
    const bundle: ChunkValue = { kind: 'arrays', arrays: { s: { dtype: 'float64', shape: [1], data: Float64Array.from([7]) } } };
    const picked = await findHandler('array-op', 'pick')?.({ name: 's' }, [bundle], ctx);
    expect(picked?.value.kind === 'array' && picked.value.array.data).toEqual(Float64Array.from([7]));
  });

  it('a renamed param of a linalg or NumPy op is refused, not computed with undefined', async () => {
    // Before these ops were typed, histogram with `bin` counted into an empty array and matmul with
    // `K` contracted nothing; both now fail at the boundary naming the op and the field.
    await expect(findHandler('array-op', 'histogram')?.({ bin: 2, lo: 0, hi: 1 }, [block([0.5], [1])], ctx)).rejects.toThrow(/array-op 'histogram'.*bins/);
    await expect(findHandler('array-op', 'matmul')?.({ K: 1 }, [block([1], [1, 1]), block([1], [1, 1])], ctx)).rejects.toThrow(/array-op 'matmul'.*k/);
    await expect(findHandler('array-op', 'cumulate')?.({ axis: 0, op: 'max', dtype: 'float64' }, [block([1], [1])], ctx)).rejects.toThrow(/array-op 'cumulate'.*op/);
  });

  it('the assemble handler runs on parsed params: two pieces into one block', async () => {
    const run = findHandler('array-op', 'assemble');
    const params = { shape: [3], dtype: 'float64', pieces: [{ dep: 0, srcStart: [1], count: [2], dstStart: [0] }, { dep: 1, srcStart: [0], count: [1], dstStart: [2] }] };
    const out = await run?.(params, [block([1, 2, 3], [3]), block([4, 5], [2])], ctx);
    expect(out?.value.kind === 'array' && out.value.array.data).toEqual(Float64Array.from([2, 3, 4]));
  });

  it('a renamed or mistyped param is refused with the op and field named', async () => {
    const run = findHandler('array-op', 'assemble');
    const renamed = { shap: [3], dtype: 'float64', pieces: [] };
    await expect(run?.(renamed, [], ctx)).rejects.toThrow(/array-op 'assemble': params do not match its schema: shape: /);
    const mistyped = { shape: [3], dtype: 'float16', pieces: [] };
    await expect(run?.(mistyped, [], ctx)).rejects.toThrow(/array-op 'assemble'.*dtype/);
    expect(() => parseArrayOpParams('npy-read', { path: 'x.npy', dataStart: -1, fileBytes: 10, dtype: 'float64', fileShape: [1], start: [0], shape: [1] })).toThrow(/array-op 'npy-read'.*dataStart/);
  });
});
