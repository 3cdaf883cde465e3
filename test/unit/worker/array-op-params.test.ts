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

  it("every typed op main emits parses with its schema: rechunk, transpose, the randomized SVD's four", () => {
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
    expect([...seen].sort()).toEqual(['assemble', 'rs-mm', 'rs-sketch', 'rs-sum', 'rs-u', 'transpose']);
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
