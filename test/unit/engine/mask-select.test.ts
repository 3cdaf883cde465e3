/**
 * Boolean-mask selection x[mask] (issue 24 item 2), adapted from dask/array/tests'
 * test_boolean_indexing cases: 1-D and 2-D inputs with odd chunkings, the result of unknown
 * length computed, reduced and used in elementwise ops, against NumPy (/usr/bin/python3, in the
 * test) on js and on native-cpu with js behind it; then what needs known sizes is refused.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResultValue } from '../../../common/results';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { explain } from '../../../main/engine/compile/explain';
import { validateWorkflow } from '../../../main/engine/validate';
import { backendSets } from '../../helpers/backend-sets';
import { graph, type GraphNode } from '../../helpers/local-run';
import { localTasks } from '../../helpers/local-tasks';
import { axisMaskDoc, axisMaskFixture, maskFixture as fixture, maskDoc } from '../../helpers/mask-cases';

const close = (got: number, want: number, rel: number) => expect(Math.abs(got - want)).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(want)));

describe.each(backendSets())('x[mask] with unknown chunk sizes against NumPy (%s)', (_, backends) => {
  const run = async (d: unknown): Promise<Record<string, ResultValue>> => (await localTasks(d, {}, {}, backends())).results();

  it.each([
    ['1-D float64, odd chunks', [23], [5], 'float64', 0.5],
    ['2-D float64, chunks on both axes (NumPy\'s C order, not block order)', [7, 9], [3, 4], 'float64', -1],
    ['3-D float32', [4, 3, 5], [3, 2, 2], 'float32', 1],
    ['2-D int32: an exact int64 sum', [6, 5], [4, 3], 'int32', 0],
    ['a mask with no True value: an empty result', [10], [3], 'float64', 100],
  ] as Array<[string, number[], number[], string, number]>)('%s', async (_name, shape, chunks, dtype, t) => {
    const { path, want } = fixture(shape, dtype, t);
    const out = await run(maskDoc(path, chunks, t, (want.m as number[]).length > 0));
    const m = want.m as number[];
    expect(out.out).toMatchObject({ kind: 'array', shape: [m.length], data: m });
    expect(out.affine).toMatchObject({ dtype: want.affineDtype, shape: [m.length] });
    (out.affine as { data: number[] }).data.forEach((v, i) => close(v, (want.affine as number[])[i], dtype === 'float32' ? 1e-6 : 0));
    expect(out.sum).toMatchObject({ kind: 'scalar', dtype: want.sumDtype });
    close((out.sum as { value: number }).value, want.sum as number, dtype === 'float32' ? 1e-5 : 1e-12);
    if (m.length === 0) {
      expect((out.mean as { value: number }).value).toBeNaN();
      return;
    }
    close((out.mean as { value: number }).value, want.mean as number, dtype === 'float32' ? 1e-5 : 1e-12);
    close((out.std as { value: number }).value, want.std as number, dtype === 'float32' ? 1e-5 : 1e-12);
    expect((out.min as { value: number }).value).toBe(want.min);
  });
});

describe.each(backendSets())('x[m] / x[:, m]: a 1-D mask along one axis against NumPy (%s)', (_, backends) => {
  const run = async (d: unknown): Promise<Record<string, ResultValue>> => (await localTasks(d, {}, {}, backends())).results();

  it.each([
    ['x[m] of a 2-D float64, odd chunks', [11, 7], [4, 3], 0, 0],
    ['x[:, m] of a 2-D float64', [7, 13], [3, 5], 1, 0],
    ['x[:, m] of a 3-D float32 (axis 1)', [4, 9, 5], [3, 4, 2], 1, -2],
    ['x[..., m] of a 3-D int32 (axis -1): an exact int64 sum', [5, 4, 10], [2, 3, 3], -1, 1],
    ['a mask with no True value: an empty axis', [6, 8], [4, 3], 1, 1000],
    ['a mask all True: x itself', [6, 8], [4, 3], 0, -1000],
  ] as Array<[string, number[], number[], number, number]>)('%s', async (_name, shape, chunks, axis, t) => {
    const dtype = _name.includes('float32') ? 'float32' : _name.includes('int32') ? 'int32' : 'float64';
    const { path, want } = axisMaskFixture(shape, dtype, axis, t);
    const s = want.s as number[];
    const out = await run(axisMaskDoc(path, chunks, axis, t, s.length > 0));
    expect(out.out).toMatchObject({ kind: 'array', shape: want.shape, data: s });
    expect(out.affine).toMatchObject({ dtype: want.affineDtype, shape: want.shape });
    (out.affine as { data: number[] }).data.forEach((v, i) => close(v, (want.affine as number[])[i], dtype === 'float32' ? 1e-6 : 0));
    expect(out.sum).toMatchObject({ kind: 'scalar', dtype: want.sumDtype });
    close((out.sum as { value: number }).value, want.sum as number, dtype === 'float32' ? 1e-5 : 1e-12);
    const tol = dtype === 'float32' ? 1e-5 : 1e-12;
    const along = (got: ResultValue | undefined, w: Array<number | null>) => {
      expect(got?.kind).toBe('array');
      const data = (got as { data: number[] }).data;
      expect(data).toHaveLength(w.length);
      data.forEach((v, i) => (w[i] === null ? expect(v).toBeNaN() : close(v, w[i] as number, tol)));
    };
    along(out.sum0, want.sum0 as number[]);
    along(out.meanLast, want.meanLast as Array<number | null>);
    expect(out.maxNext).toMatchObject({ shape: want.maxNextShape, data: want.maxNext });
    expect(out.countLast).toMatchObject({ dtype: want.countDtype, data: want.countLast });
    if (s.length === 0) return;
    close((out.mean as { value: number }).value, want.mean as number, tol);
    expect((out.min as { value: number }).value).toBe(want.min);
  });
});

describe.each(backendSets())('reductions of a selection that turns out empty, as NumPy (%s)', (_, backends) => {
  const reduceOf = (op: string, stop = 10) =>
    graph(
      [['x', 'arange', { start: 0, stop, chunks: 3 }], ['c', 'scalar_op', { op: 'gt', value: 4 }], ['m', 'mask_select', {}], ['r', 'reduce', { op }]],
      [['x', 'c', 'x'], ['x', 'm', 'x'], ['c', 'm', 'mask'], ['m', 'r', 'x']],
    );
  const run = async (d: unknown) => (await (await localTasks(d, {}, {}, backends())).results()).r;

  it('any is False and all True of nothing; sum 0 and prod 1; any / all of a selection', async () => {
    // arange(3) > 4 keeps nothing; arange(10) > 4 keeps [5..9]: any True, all True.
    expect(await run(reduceOf('any', 3))).toMatchObject({ kind: 'scalar', dtype: 'bool', value: 0 });
    expect(await run(reduceOf('all', 3))).toMatchObject({ kind: 'scalar', dtype: 'bool', value: 1 });
    expect(await run(reduceOf('sum', 3))).toMatchObject({ kind: 'scalar', dtype: 'float64', value: 0 });
    expect(await run(reduceOf('prod', 3))).toMatchObject({ kind: 'scalar', dtype: 'float64', value: 1 });
    expect(await run(reduceOf('any'))).toMatchObject({ dtype: 'bool', value: 1 });
    expect(await run(reduceOf('all'))).toMatchObject({ dtype: 'bool', value: 1 });
    expect(await run(reduceOf('max'))).toMatchObject({ dtype: 'float64', value: 9 });
  });

  it('min / nanmax of nothing fail when they run, as NumPy raises ValueError', async () => {
    await expect(run(reduceOf('min', 3))).rejects.toThrow(/min of an empty selection .*has no identity \(NumPy raises ValueError/);
    await expect(run(reduceOf('nanmax', 3))).rejects.toThrow(/nanmax of an empty selection/);
  });
});

describe('x[mask]: what needs known sizes is refused, as Dask refuses', () => {
  const base: GraphNode[] = [
    ['x', 'arange', { start: 0, stop: 10, chunks: 3 }],
    ['c', 'scalar_op', { op: 'gt', value: 4 }],
    ['m', 'mask_select', {}],
  ];
  const edges: Array<[string, string, string]> = [['x', 'c', 'x'], ['x', 'm', 'x'], ['c', 'm', 'mask']];
  const compile = (extra: GraphNode[], more: Array<[string, string, string]>) => compileWorkflow(validateWorkflow(graph([...base, ...extra], [...edges, ...more])));

  it('refuses a slice, a binary op with another array and argmax of it, naming the unknown sizes', () => {
    expect(() => compile([['s', 'slice', { slices: ':2' }]], [['m', 's', 'x']])).toThrow(/inputs\.x \(node 's'\): has unknown chunk sizes .*compute_chunk_sizes/);
    expect(() => compile([['b', 'binary', { op: 'add' }]], [['m', 'b', 'a'], ['x', 'b', 'b']])).toThrow(/inputs\.a \(node 'b'\): has unknown chunk sizes/);
    expect(() => compile([['r', 'reduce', { op: 'argmax' }]], [['m', 'r', 'x']])).toThrow(/unknown chunk sizes.*\(argmax\)/);
  });

  it('refuses a mask that is not bool or not of x\'s shape', () => {
    const y: GraphNode[] = [['y', 'arange', { start: 0, stop: 10, chunks: 3, dtype: 'int32' }], ['k', 'mask_select', {}]];
    expect(() => compileWorkflow(validateWorkflow(graph(y, [['y', 'k', 'x'], ['y', 'k', 'mask']])))).toThrow(/inputs\.mask \(node 'k'\): is int32, not bool .*use take/);
    const z: GraphNode[] = [['y', 'arange', { start: 0, stop: 9, chunks: 3 }], ['c2', 'scalar_op', { op: 'gt', value: 1 }], ['k', 'mask_select', {}]];
    expect(() => compile(z, [['y', 'c2', 'x'], ['x', 'k', 'x'], ['c2', 'k', 'mask']])).toThrow(/boolean index of shape \(9\) does not match the array's shape \(10\)/);
  });

  it('along one axis: refuses max / any along the selected axis, a mask of another length, an axis out of range', () => {
    const nodes: GraphNode[] = [
      ['y', 'random_normal', { shape: [10, 4], chunks: [3, 4], seed: 1 }],
      ['c', 'scalar_op', { op: 'gt', value: 4 }],
      ['k', 'mask_select', { axis: 0 }],
    ];
    const ed: Array<[string, string, string]> = [['x', 'c', 'x'], ['y', 'k', 'x'], ['c', 'k', 'mask']];
    const c2 = (extra: GraphNode[], more: Array<[string, string, string]>, axis = 0) =>
      compileWorkflow(validateWorkflow(graph([base[0], ...nodes.map((n): GraphNode => (n[0] === 'k' ? ['k', 'mask_select', { axis }] : n)), ...extra], [...ed, ...more])));
    // Along the selected axis a selection that turns out empty has no max / any to give (NumPy raises / False).
    expect(() => c2([['r', 'reduce', { op: 'max', axis: 0 }]], [['k', 'r', 'x']])).toThrow(/inputs\.x \(node 'r'\): has unknown chunk sizes .*\(max along axes \(0\) of a 2-d array: reduce over all axes, or along one axis the mask did not select\)/);
    expect(() => c2([['r', 'reduce', { op: 'any', axis: -2 }]], [['k', 'r', 'x']])).toThrow(/\(any along axes \(0\) of a 2-d array/);
    expect(() => c2([['r', 'reduce', { op: 'sum', axis: 1 }]], [['k', 'r', 'x']])).not.toThrow();
    expect(() => c2([], [], 1)).toThrow(/inputs\.mask \(node 'k'\): boolean index of length 10 does not match axis 1 of the array's shape \(10, 4\)/);
    expect(() => c2([], [], -3)).toThrow(/params\.axis \(node 'k'\): axis -3 is out of bounds for the 2-d array x/);
    // x[:, m] of a 1-d x: NumPy's IndexError.
    expect(() => compile([['k1', 'mask_select', { axis: 1 }]], [['x', 'k1', 'x'], ['c', 'k1', 'mask']])).toThrow(/params\.axis \(node 'k1'\): axis 1 is out of bounds for the 1-d array x/);
    expect(() => c2([['s', 'slice', { slices: ':2' }]], [['k', 's', 'x']])).toThrow(/inputs\.x \(node 's'\): has unknown chunk sizes/);
    expect(JSON.stringify(explain(c2([['r', 'reduce', { op: 'sum' }]], [['k', 'r', 'x']])))).toMatch(/array float64 \(nan, 4\)/);
  });

  it('explain shows the unknown length as nan, as Dask does', () => {
    const ex = explain(compile([['r', 'reduce', { op: 'sum' }]], [['m', 'r', 'x']]));
    expect(JSON.stringify(ex)).toMatch(/array float64 \(nan,\)/);
  });
});

/**
 * Adapted from dask/array/tests/test_slicing.py test_index_with_bool_dask_array_2: x of shape
 * (10, 10, 10) in (3, 4, 5) blocks, a bool index of its own chunking (4), sliced [1:9] on another
 * axis and masked on axis i for each i, against NumPy's x[..., 1:9, ..., ind, ...].
 */
describe.each(backendSets())('dask\'s bool index with its own chunks on each axis of a 3-D x, against NumPy (%s)', (_, backends) => {
  const dir = mkdtempSync(join(tmpdir(), 'gpuflow-mask-ind-'));
  const want = JSON.parse(
    execFileSync('/usr/bin/python3', ['-c', `
import json, sys, numpy as np
rng = np.random.default_rng(3)
x = rng.random((10, 10, 10)); ind = rng.random(10) > 0.5
np.save(sys.argv[1] + '/x.npy', x); np.save(sys.argv[1] + '/ind.npy', ind)
out = []
for i in range(3):
    idx = [slice(None)] * 3; idx[(i + 1) % 3] = slice(1, 9); s = x[tuple(idx)]
    idx2 = [slice(None)] * 3; idx2[i] = ind; r = s[tuple(idx2)]
    out.append({"shape": list(r.shape), "data": r.ravel().tolist()})
print(json.dumps(out))
`, dir], { encoding: 'utf8' }),
  ) as Array<{ shape: number[]; data: number[] }>;

  it.each([0, 1, 2])('mask on axis %i', async (i) => {
    const slices = [0, 1, 2].map((d) => (d === (i + 1) % 3 ? '1:9' : ':')).join(', ');
    const d = graph(
      [['x', 'load_npy', { path: join(dir, 'x.npy'), chunks: [3, 4, 5] }], ['ind', 'load_npy', { path: join(dir, 'ind.npy'), chunks: [4] }], ['s', 'slice', { slices }], ['r', 'mask_select', { axis: i }]],
      [['x', 's', 'x'], ['s', 'r', 'x'], ['ind', 'r', 'mask']],
    );
    const out = (await (await localTasks(d, {}, {}, backends())).results()).r;
    expect(out).toMatchObject({ kind: 'array', dtype: 'float64', shape: want[i].shape, data: want[i].data });
  });
});
