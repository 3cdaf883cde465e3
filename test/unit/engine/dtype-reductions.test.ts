/**
 * Reductions with NumPy's dtypes and exactness, on the js backend and on native-cpu (integer
 * programs fall back to js there, as on a worker): integer sums exact in int64 above 2**53,
 * min / max keeping int32, float32 results staying float32, and reductions over an empty axis
 * giving NumPy's identities (x[:0].sum(axis=0) is zeros). Expected values are hand-computed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NDArray } from '../../../common/arrays';
import { writeNpy } from '../../../common/npy';
import { chain } from '../../helpers/local-run';
import { localTasks } from '../../helpers/local-tasks';
import { backendSets } from '../../helpers/backend-sets';

const dir = mkdtempSync(join(tmpdir(), 'gpuflow-reduce-dtypes-'));
function npy(name: string, a: NDArray): string {
  const path = join(dir, `${name}.npy`);
  writeFileSync(path, writeNpy(a));
  return path;
}
const big = npy('big', { dtype: 'int64', shape: [4], data: BigInt64Array.from([2n ** 53n, 1n, 1n, 1n]) });
const big2d = npy('big2d', { dtype: 'int64', shape: [3, 2], data: BigInt64Array.from([2n ** 60n, 5n, 3n, -(2n ** 55n), 7n, 9n]) });
const i32 = npy('i32', { dtype: 'int32', shape: [5], data: Int32Array.from([7, -3, 12, 0, 5]) });


describe.each(backendSets())('reduction dtypes (%s)', (_, backends) => {
  const run = async (doc: unknown) => (await localTasks(doc, {}, {}, backends())).results();

  it('sums int64 above 2**53 exactly, over chunks', async () => {
    const r = await run(chain(['x', 'load_npy', { path: big, chunks: [3] }], ['s', 'reduce', { op: 'sum' }]));
    // 2**53 + 3 = 9007199254740995 (float64 would give ...994).
    expect(r.s).toMatchObject({ kind: 'scalar', dtype: 'int64', exact: '9007199254740995' });
  });

  it('sums int64 along an axis exactly', async () => {
    const r = await run(chain(['x', 'load_npy', { path: big2d, chunks: [2, 1] }], ['s', 'reduce', { op: 'sum', axis: 0 }]));
    expect(r.s).toMatchObject({ dtype: 'int64', shape: [2] });
    // Column sums 2**60 + 3 + 7 and 5 - 2**55 + 9: what the int64 sums finalize to, exactly, as the run reports them (a JSON number each).
    expect((r.s as { data: number[] }).data).toEqual([Number(2n ** 60n + 10n), Number(14n - 2n ** 55n)]);
  });

  it('min / max of int32 are int32, sum int64, mean float64', async () => {
    const want = { min: ['int32', -3], max: ['int32', 12], sum: ['int64', 21], mean: ['float64', 4.2] } as const;
    for (const [op, [dtype, value]] of Object.entries(want)) {
      const r = await run(chain(['x', 'load_npy', { path: i32, chunks: [2] }], ['s', 'reduce', { op }]));
      expect(r.s, op).toMatchObject({ kind: 'scalar', dtype, value });
    }
  });

  it('float32 sum and mean are float32', async () => {
    const r = await run(chain(['x', 'full', { shape: [10], chunks: [3], dtype: 'float32', value: 0.1 }], ['s', 'reduce', { op: 'sum' }]));
    // Ten float32(0.1)s, added in float64 and rounded once: float32(10 * 0.100000001490116).
    expect(r.s).toMatchObject({ kind: 'scalar', dtype: 'float32', value: Math.fround(10 * Math.fround(0.1)) });
    const m = await run(chain(['x', 'full', { shape: [4, 3], chunks: [3, 2], dtype: 'float32', value: 0.1 }], ['s', 'reduce', { op: 'mean', axis: 1 }]));
    expect(m.s).toMatchObject({ dtype: 'float32', data: Array(4).fill(Math.fround(0.1)) });
  });

  it('x[:0].sum(axis=0) is zeros and x[:0].sum() is 0, as NumPy', async () => {
    const r = await run(chain(['x', 'ones', { shape: [5, 7], chunks: [2, 3] }], ['e', 'slice', { slices: ':0' }], ['s', 'reduce', { op: 'sum', axis: 0 }]));
    expect(r.s).toMatchObject({ dtype: 'float64', shape: [7], data: Array(7).fill(0) });
    const all = await run(chain(['x', 'ones', { shape: [5, 7], chunks: [2, 3] }], ['e', 'slice', { slices: ':0' }], ['s', 'reduce', { op: 'sum' }]));
    expect(all.s).toMatchObject({ value: 0 });
    const mean = await run(chain(['x', 'ones', { shape: [5, 7], chunks: [2, 3] }], ['e', 'slice', { slices: ':, :0' }], ['s', 'reduce', { op: 'mean', axis: 1 }]));
    expect(mean.s).toMatchObject({ shape: [5], data: Array(5).fill(NaN) });
  });

  it('refuses max over an empty axis, as NumPy', async () => {
    await expect(run(chain(['x', 'ones', { shape: [5, 7], chunks: [2, 3] }], ['e', 'slice', { slices: ':0' }], ['s', 'reduce', { op: 'max', axis: 0 }]))).rejects.toThrow(/empty axis has no identity/);
  });
});
