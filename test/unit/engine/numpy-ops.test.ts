/**
 * Array ops against NumPy: every case in test/fixtures/arrays/ops/cases.json (written by
 * make_op_fixtures.py) loads its inputs with load_npy, runs one op through the compiler and the js
 * kernels, and compares with NumPy's saved result. Exact where IEEE arithmetic makes it so (min,
 * max, arg*, slicing, + - * / and float32 single ops); reductions that sum in a different order
 * and libm functions within a few ulps.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNpy } from '../../../common/npy';
import type { ResultValue } from '../../../common/results';
import { runLocal } from '../../helpers/local-run';

const DIR = 'test/fixtures/arrays/ops';
interface Case {
  kind: string;
  expected: string;
  [k: string]: unknown;
}
const cases = JSON.parse(readFileSync(join(DIR, 'cases.json'), 'utf8')) as Case[];

function expected(c: Case): { shape: number[]; data: number[] } {
  // A Uint8Array copy: readNpy slices its input, and a pooled Buffer slice would alias the pool.
  const a = readNpy(new Uint8Array(readFileSync(join(DIR, c.expected))));
  return { shape: a.shape, data: Array.from(a.data as ArrayLike<number | bigint>, Number) };
}

const load = (id: string, file: unknown, chunks: unknown = [3]) => ({ id, op: 'load_npy', params: { path: join(DIR, String(file)), chunks } });
const edge = (source: string, target: string, targetPort: string) => ({ source, sourcePort: 'out', target, targetPort });
const doc = (nodes: unknown[], edges: unknown[]) => ({ format: 'gpuflow.workflow/1', nodes, edges });

function workflow(c: Case): unknown {
  switch (c.kind) {
    case 'reduce':
      return doc([load('x', c.input, c.chunks), { id: 'out', op: 'reduce', params: { op: c.op, ddof: c.ddof, split_every: 2, ...(c.axis === null ? {} : { axis: c.axis }) } }], [edge('x', 'out', 'x')]);
    case 'binary':
      return doc([load('a', c.a), load('b', c.b, [2]), { id: 'out', op: 'binary', params: { op: c.op } }], [edge('a', 'out', 'a'), edge('b', 'out', 'b')]);
    case 'unary':
      return doc([load('x', c.input), { id: 'out', op: 'unary', params: { op: c.op } }], [edge('x', 'out', 'x')]);
    case 'clip':
      return doc([load('x', c.input), { id: 'out', op: 'clip', params: { min: c.min, max: c.max } }], [edge('x', 'out', 'x')]);
    case 'slice':
      return doc([load('x', c.input, [4, 5]), { id: 'out', op: 'slice', params: { slices: c.slices } }], [edge('x', 'out', 'x')]);
    case 'linspace':
    case 'arange':
      return doc([{ id: 'out', op: c.kind, params: c.params }], []);
  }
  throw new Error(`unknown case kind ${c.kind}`);
}

/** Relative tolerance per case: 0 means bit-exact. */
function tolerance(c: Case): number {
  if (c.exact) return 0;
  if (c.kind === 'reduce') return ['min', 'max', 'argmin', 'argmax'].includes(c.op as string) ? 0 : 1e-13;
  if (c.kind === 'slice' || c.kind === 'clip') return 0;
  if (c.kind === 'binary') return c.op === 'pow' ? 4e-16 : 0;
  if (c.kind === 'unary') return ['neg', 'abs', 'sqrt'].includes(c.op as string) ? 0 : 4e-16;
  return 4e-16; // linspace / arange: start + i * step, NumPy may round differently by an ulp
}

function values(r: ResultValue): { shape: number[]; data: number[] } {
  if (r.kind === 'scalar') return { shape: [], data: [r.value] };
  if (r.kind === 'array' && r.data) return { shape: r.shape, data: r.data };
  throw new Error(`unexpected result ${JSON.stringify(r).slice(0, 200)}`);
}

const label = (c: Case) => `${c.kind} ${[c.op, c.input ?? '', c.a ?? '', c.b ?? '', c.axis === undefined ? '' : `axis=${c.axis}`, c.ddof ? `ddof=${c.ddof}` : '', c.slices ?? '', c.params ? JSON.stringify(c.params) : ''].filter(Boolean).join(' ')} -> ${c.expected}`;

describe('array ops against NumPy fixtures', () => {
  const check = async (c: Case) => {
    const got = values((await runLocal(workflow(c))).out);
    const want = expected(c);
    expect(got.shape).toEqual(want.shape);
    const tol = tolerance(c);
    got.data.forEach((x, i) => {
      const w = want.data[i];
      if (Number.isNaN(w) || tol === 0) expect(x, `element ${i}`).toBe(w);
      else expect(Math.abs(x - w), `element ${i}: ${x} vs ${w}`).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(w)));
    });
  };
  const table = cases.map((c) => [label(c), c] as const);
  it.each(table)('%s', (_, c) => check(c));
});
