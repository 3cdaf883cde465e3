/**
 * NumPy basic indexing on generated arrays (issue 18, items 1 and 2): an integer drops its axis,
 * negative steps walk backwards, None and ... as NumPy; the selection stays pushed into the
 * generator (each program's random leaf reads only the kept elements), and the values are the
 * Philox stream's at the kept flat indices, computed here by hand. native-cpu gives the js
 * values (its programs fold the axis map into leaf strides; negative strides run on js until the
 * addon reports `negativeStrides`).
 */
import { describe, expect, it } from 'vitest';
import type { ChunkProgram, Expr } from '../../../common/arrays';
import type { ResultValue } from '../../../common/results';
import { loadNative } from '../../../native/index';
import { encodeProgram, unsupportedReason } from '../../../native/program-code';
import type { ArrayBackend } from '../../../worker/kernels/backend';
import { createJsBackend } from '../../../worker/kernels/js';
import { PhiloxStream } from '../../../common/philox';
import { localTasks } from '../../helpers/local-tasks';
import { nativeCpu } from '../../helpers/backend-sets';

const native = loadNative();

const doc = (shape: number[], chunks: number[], slices: string) => ({
  format: 'gpuflow.workflow/1',
  nodes: [
    { id: 'x', op: 'random_normal', params: { shape, chunks, seed: 7, mean: 1, std: 2 } },
    { id: 'out', op: 'slice', params: { slices } },
  ],
  edges: [{ source: 'x', sourcePort: 'out', target: 'out', targetPort: 'x' }],
});

/** The selection by hand: NumPy's rule per axis (kept indices), then the Philox values there. */
function byHand(shape: number[], perAxis: number[][]): number[] {
  const s = new PhiloxStream(7, 'normal', 1, 2, false);
  const out: number[] = [];
  const walk = (d: number, flat: number) => {
    if (d === shape.length) {
      out.push(s.at(flat));
      return;
    }
    for (const i of perAxis[d]) walk(d + 1, flat * shape[d] + i);
  };
  walk(0, 0);
  return out;
}
const range = (start: number, stop: number, step: number) => {
  const r: number[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) r.push(i);
  return r;
};

async function run(shape: number[], chunks: number[], slices: string, backends: ArrayBackend[] = [createJsBackend()]) {
  const lt = await localTasks(doc(shape, chunks, slices), {}, {}, backends);
  const out = (await lt.results()).out as Extract<ResultValue, { kind: 'array' }>;
  const programs = [...lt.compiled.tasks.values()].flatMap((t) => (t.spec.kind === 'program' ? [t.spec.program] : []));
  return { shape: out.shape, data: out.data!, programs };
}

function leaves(e: Expr): Expr[] {
  switch (e.kind) {
    case 'leaf':
      return [e];
    case 'unary':
    case 'clip':
    case 'broadcast':
      return leaves(e.arg);
    case 'binary':
      return [...leaves(e.a), ...leaves(e.b)];
    case 'where':
      return [...leaves(e.cond), ...leaves(e.a), ...leaves(e.b)];
  }
}

const CASES: Array<{ slices: string; shape: number[]; perAxis: number[][] }> = [
  // The case: x[::7, 22] of a 37 x 23 array has shape (6,).
  { slices: '::7, 22', shape: [6], perAxis: [range(0, 37, 7), [22]] },
  { slices: '::-1', shape: [37, 23], perAxis: [range(36, -1, -1), range(0, 23, 1)] },
  { slices: '2:-3:2, ::-3', shape: [16, 8], perAxis: [range(2, 34, 2), range(22, -1, -3)] },
  { slices: '-4, 20:3:-5', shape: [4], perAxis: [[33], range(20, 3, -5)] },
  { slices: 'None, 30:, ..., -2', shape: [1, 7], perAxis: [range(30, 37, 1), [21]] },
  { slices: '5, 6', shape: [], perAxis: [[5], [6]] },
];

describe('basic indexing of a generated array (js)', () => {
  it.each(CASES)('x[$slices]', async ({ slices, shape, perAxis }) => {
    const got = await run([37, 23], [10, 7], slices);
    expect(got.shape).toEqual(shape);
    expect(got.data).toEqual(byHand([37, 23], perAxis));
  });

  it('keeps the slice pushed into the generator: a block generates only its kept elements, backwards', async () => {
    const { programs } = await run([37, 23], [10, 7], '2:-3:2, ::-3');
    const generated = programs.reduce((n, p) => n + leaves(p.expr).reduce((m, l) => m + (l.kind === 'leaf' && l.leaf.kind === 'random' ? l.leaf.region.count.reduce((a, b) => a * b, 1) : 0), 0), 0);
    expect(generated).toBe(16 * 8);
    const first = leaves(programs[0].expr)[0];
    if (first.kind !== 'leaf' || first.leaf.kind !== 'random') throw new Error('expected a random leaf');
    // Output block (0, 0): rows 2, 4, 6, 8 of source block 0; column 22 of the last source block
    // (columns 21..22), whose next kept column, 19, is in the block before.
    expect(first.leaf.region).toEqual({ start: [2, 22], step: [2, -3], count: [4, 1] });
  });

  it('refuses bad indices with NumPy-like messages', async () => {
    await expect(run([37, 23], [10, 7], '37, 0')).rejects.toThrow(/index 37 is out of bounds for axis 0 with size 37/);
    await expect(run([37, 23], [10, 7], '::0')).rejects.toThrow(/step cannot be zero/);
    await expect(run([37, 23], [10, 7], '1, 2, 3')).rejects.toThrow(/too many indices/);
    await expect(run([37, 23], [10, 7], '..., 1, ...')).rejects.toThrow(/single ellipsis/);
  });
});

describe.skipIf('unavailable' in native)('basic indexing on native-cpu', () => {
  it.each(CASES)('x[$slices] gives the js values', async ({ slices, shape }) => {
    const js = await run([37, 23], [10, 7], slices);
    const nat = await run([37, 23], [10, 7], slices, [nativeCpu(), createJsBackend()]);
    expect(nat.shape).toEqual(shape);
    // The addon's vectorised normal transform may differ from js's in the last bits
    // (test/unit/native: 'within a few ulps'); the selection itself must be the same elements.
    expect(nat.data).toHaveLength(js.data.length);
    nat.data.forEach((x, i) => expect(Math.abs(x - js.data[i]), `element ${i}`).toBeLessThanOrEqual(4e-15 * Math.max(1, Math.abs(js.data[i]))));
  });

  it('runs negative steps on the addon when it reports negative strides, else leaves them to js', async () => {
    const { programs } = await run([37, 23], [10, 7], '2:-3:2, ::-3');
    const b = nativeCpu();
    const negative = 'unavailable' in native ? false : native.addon.info().negativeStrides === true;
    for (const p of programs) expect(b.supportsProgram(p)).toBe(negative);
  });

  it('runs dropped and new axes on the addon (the axis map folds into leaf strides)', async () => {
    const { programs } = await run([37, 23], [10, 7], 'None, ::7, 22');
    const b = nativeCpu();
    for (const p of programs) expect(b.supportsProgram(p)).toBe(true);
  });
});

describe('program encoding of negative strides', () => {
  const program: ChunkProgram = {
    dtype: 'float64',
    shape: [3],
    expr: { kind: 'leaf', leaf: { kind: 'arange', start: 0, step: 1, shape: [10], region: { start: [8], step: [-3], count: [3] } } },
  };
  it('encodes a backward leaf as a negative coefficient from its first element', () => {
    const code = Array.from(encodeProgram(program, []));
    // ... instruction count 1, then: arange (2), start 0, step 1, offset 8, coefficient -3.
    expect(code.slice(-6)).toEqual([1, 2, 0, 1, 8, -3]);
  });
  it('leaves it to js when the addon has no negative strides', () => {
    expect(unsupportedReason(program)).toMatch(/negative slice step/);
    expect(unsupportedReason(program, { negativeStrides: true })).toBeNull();
  });
  it('refuses a backward region that leaves its array', () => {
    const bad = { ...program, expr: { kind: 'leaf' as const, leaf: { kind: 'arange' as const, start: 0, step: 1, shape: [10], region: { start: [5], step: [-3], count: [3] } } } };
    expect(() => encodeProgram(bad, [])).toThrow(/leaves its array on axis 0/);
  });
});
