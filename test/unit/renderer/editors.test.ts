/**
 * What users type: a scalar chunk size broadcast over every axis, as Dask does (`500` is
 * (500, 500) for a 2-D array), from the param form to the engine, which takes `500` and `[500]`
 * alike for generators, load_npy and rechunk.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ParamSpec } from '../../../common/catalog';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { parseParam } from '../../../renderer/logic/param-form';

const seed = () => JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));
const chunksSpec = { name: 'chunks', kind: 'numbers', integer: true, exclusiveMin: 0, minLength: 1, required: true } as ParamSpec;
const shapeSpec = { name: 'shape', kind: 'numbers', integer: true, min: 0, minLength: 1, required: true } as ParamSpec;

/** Fused programs of the compiled seed workflow: one per chunk of x. */
function programs(doc: unknown): number {
  return [...compileWorkflow(validateWorkflow(doc, { N: 1000 })).tasks.values()].filter((t) => t.spec.kind === 'program').length;
}

describe('scalar chunk sizes', () => {
  it('the param form keeps one chunk size a number; a shape of one number stays a 1-D list', () => {
    expect(parseParam(chunksSpec, '500')).toEqual({ ok: true, value: 500 });
    expect(parseParam(chunksSpec, '500, 250')).toEqual({ ok: true, value: [500, 250] });
    expect(parseParam(chunksSpec, '-5')).toEqual({ ok: false, error: 'chunks must be greater than 0' });
    expect(parseParam(chunksSpec, '$c', { c: 10 })).toEqual({ ok: true, value: '$c' });
    expect(parseParam(shapeSpec, '500')).toEqual({ ok: true, value: [500] });
  });

  it('the engine broadcasts 500 and [500] over a 2-D shape: (1000/500)^2 = 4 chunks', () => {
    for (const chunks of [500, [500], [500, 500]]) {
      const d = seed();
      d.nodes[0].params.chunks = chunks;
      expect(programs(d), JSON.stringify(chunks)).toBe(4);
    }
    const d = seed();
    d.nodes[0].params.chunks = [500, 500, 500];
    expect(() => compileWorkflow(validateWorkflow(d, { N: 1000 }))).toThrow(/nodes\[0\]\.params\.chunks \(node 'x'\): has 3 entries but shape has 2 axes/);
  });

  it('rechunk takes a scalar too', () => {
    const d = seed();
    d.nodes[0].params.chunks = 1000;
    d.nodes.splice(1, 0, { id: 'r', op: 'rechunk', params: { chunks: 250 }, position: { x: 0, y: 0 } });
    d.edges = d.edges.map((e: { source: string; target: string }) => (e.source === 'x' ? { ...e, source: 'r' } : e));
    d.edges.push({ source: 'x', sourcePort: 'out', target: 'r', targetPort: 'x' });
    // 1000/250 = 4 chunks per axis after the rechunk: 16 rechunk tasks, 16 blocks into the sum.
    const c = compileWorkflow(validateWorkflow(d, { N: 1000 }));
    expect([...c.tasks.values()].filter((t) => t.op === 'rechunk')).toHaveLength(16);
  });
});
