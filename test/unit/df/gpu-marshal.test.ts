// The js side of the device df kernels, here where there is no GPU: the GPU checks
// (test/gpu/df-checks.ts) against a js fake of the kernels that reads the same descriptors and
// buffers (test/gpu/df-fake.ts), so the marshalling in worker/kernels/df/gpu.ts is checked against
// the js kernels; the real addon accepts the marshalled arguments (its validation passes, then
// the call is refused for want of a device, with the reason); the checks say "unavailable" rather
// than pass when there are no kernels; and the worker's op dispatch records the backend and why
// it fell back.
import { describe, expect, it } from 'vitest';
import { dfAddon } from '../../../native/df';
import { loadNative } from '../../../native/index';
import { runDfOpOn } from '../../../worker/kernels/df/cuda-ops';
import { groupbyChunkNative, hashJoinNative, filterNative } from '../../../worker/kernels/df/gpu';
import { timeseriesGroupbyNative } from '../../../worker/kernels/df/timeseries-groupby';
import { dfTable, runDfChecks } from '../../gpu/df-checks';
import { fakeDfCuda } from '../../gpu/df-fake';

const skip = process.env.GPUFLOW_NO_NATIVE === '1';

describe.skipIf(skip)('df kernels marshalling (no GPU)', () => {
  const d = dfAddon();
  if ('unavailable' in d) throw new Error(`the addon's df kernels are needed here: ${d.unavailable}`);
  const real = d.addon;
  const fake = fakeDfCuda(real);

  it('every GPU check passes against the js fake of the kernels', async () => {
    const results = await runDfChecks({ addon: fake }, 0.05);
    expect(results.filter((r) => r.error !== null)).toEqual([]);
    expect(results.length).toBeGreaterThan(25);
  }, 60_000);

  it('without kernels the checks say unavailable, never pass', async () => {
    expect(await runDfChecks({ unavailable: 'no device here' })).toEqual([{ name: 'cuda df kernels', error: 'unavailable: no device here' }]);
  });

  it('the addon accepts the marshalled arguments, then refuses for want of a device', async () => {
    const n = loadNative();
    if ('unavailable' in n) throw new Error(n.unavailable);
    const info = n.addon.info();
    if (info.cuda) return; // a machine with a GPU runs test/gpu instead
    const reason = info.cudaReason as string;
    const t = dfTable(500, 3);
    const [l, r] = [t.select(['id', 'name', 'x']), dfTable(100, 4).select(['id', 'name', 'y'])];
    await expect(groupbyChunkNative(real.cudaDfGroupby, t, { by: ['id', 'name'], aggs: [{ column: 'x', agg: 'std' }, { agg: 'size' }] })).rejects.toThrow(reason);
    await expect(hashJoinNative(real.cudaDfJoin, l, r, { how: 'outer', on: ['id', 'name'], nulls: 'never' })).rejects.toThrow(reason);
    await expect(filterNative(real.cudaDfFilter, t, 'name == "Bob" and x > 0')).rejects.toThrow(reason);
    await expect(timeseriesGroupbyNative(real.cudaDfTimeseriesGroupby, { seed: 2 ** 32 + 1, partition: 9, rows: 1000 }, { by: ['name', 'id'], aggs: [{ column: 'x', agg: 'std' }, { column: 'id', agg: 'max' }, { agg: 'size' }] })).rejects.toThrow(reason);
  });

  it('the addon checks descriptors before queueing work', () => {
    const codes = new Int32Array(4);
    // rows, slots, keys, values, flags | codes, valid, stride, card | x, valid
    const desc = (card: number, slots: number) => Float64Array.from([4, slots, 1, 1, 0, 0, -1, 1, card, 1, -1]);
    const out = (slots: number) => new Float64Array(slots * 7);
    expect(() => real.cudaDfGroupby(desc(3, 2), [codes, new Float64Array(4)], out(2))).toThrow(/codes reach slot 2, but slots is 2/);
    expect(() => real.cudaDfGroupby(desc(3, 3), [codes, new Float64Array(4)], out(2))).toThrow(/out has 14 elements, the groupby writes 21/);
    expect(() => real.cudaDfGroupby(desc(3, 3), [codes, new Float64Array(2)], out(3))).toThrow(/value 0 has 2 elements, needs 4/);
    expect(() => real.cudaDfGroupby(desc(3, 3), [new Float64Array(4), new Float64Array(4)], out(3))).toThrow(/key 0 codes must be a Int32Array/);
    // k0, k1, rowStart, rows, slots, keys, values, flags | column, stride, card | value columns
    const td = (col: number, card: number, slots: number, value = 2) => Float64Array.from([1, 0, 0, 10, slots, 1, 1, 0, col, 1, card, value]);
    expect(() => real.cudaDfTimeseriesGroupby(td(0, 25, 26), new Float64Array(26 * 7))).toThrow(/key 0 card must be 26 for its column/);
    expect(() => real.cudaDfTimeseriesGroupby(td(1, 600, 599), new Float64Array(599 * 7))).toThrow(/codes reach slot 599, but slots is 599/);
    expect(() => real.cudaDfTimeseriesGroupby(td(0, 26, 26, 0), new Float64Array(26 * 7))).toThrow(/value 0: name is a string/);
    expect(() => real.cudaDfTimeseriesGroupby(td(0, 26, 26), new Float64Array(26 * 2))).toThrow(/out has 52 elements, the groupby writes 182/);
    expect(() => real.cudaDfTimeseriesGroupby(Float64Array.from([2 ** 32, 0, 0, 10, 26, 1, 1, 0, 0, 1, 26, 2]), new Float64Array(182))).toThrow(/desc k0 must be a whole number/);
    const jd = Float64Array.from([2, 2, 3, 1, 0, -1, 1, -1, -1, 1, 4]);
    expect(() => real.cudaDfJoin(jd, [new Int32Array(2), new Int32Array(2)], new Int32Array(4), new Int32Array(4), new Float64Array(1))).toThrow(/how \(0 inner, 1 left, 2 outer\)/);
  });

  it('the worker dispatch: cuda where the kernels take the op, js with the reason where not', async () => {
    const t = { kind: 'table' as const, table: dfTable(300, 5) };
    const spec = (agg: string) => ({ spec: { by: ['name'], aggs: [{ column: 'x', agg }] } });
    expect((await runDfOpOn(fake, 'filter', { expr: 'x > 0' }, [t])).backend).toBe('cuda');
    expect((await runDfOpOn(fake, 'groupby-chunk', spec('mean'), [t])).backend).toBe('cuda');
    expect((await runDfOpOn(fake, 'join', { spec: { how: 'inner', on: ['id'], nulls: 'never' } }, [t, t])).backend).toBe('cuda');
    // pandas' default matches null keys, which the device join does not: the host runs it.
    expect((await runDfOpOn(fake, 'join', { spec: { how: 'inner', on: ['id'] } }, [t, t])).backend).toMatch(/^js \(cuda: null keys match/);
    expect((await runDfOpOn(fake, 'groupby-chunk', spec('nunique'), [t])).backend).toBe('js (cuda: groupby nunique runs on the js kernel)');
    expect((await runDfOpOn(fake, 'filter', { expr: 'name == name' }, [t])).backend).toMatch(/^js \(cuda: filter 'name == name': a comparison of two string expressions\)$/);
    expect((await runDfOpOn(fake, 'sort', { by: ['x'] }, [t])).backend).toBe('js');
    const source = { seed: 1, partition: 2, rows: 400 };
    expect((await runDfOpOn(fake, 'timeseries-groupby-chunk', { source, spec: { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }] } }, [])).backend).toBe('cuda');
    expect((await runDfOpOn(fake, 'timeseries-groupby-chunk', { source, spec: { by: ['timestamp'], aggs: [{ column: 'x', agg: 'mean' }] } }, [])).backend).toBe("js (cuda: key 'timestamp' is not generated on the device (keys there: name, id))");
    expect((await runDfOpOn({ unavailable: 'no device' }, 'filter', { expr: 'x > 0' }, [t])).backend).toBe('js (cuda: no device)');
    expect((await runDfOpOn(null, 'filter', { expr: 'x > 0' }, [t])).backend).toBe('js');
    // Bad params still fail with the js path's message.
    await expect(runDfOpOn(fake, 'filter', { expr: '' }, [t])).rejects.toThrow(/df filter: params\.expr/);
  });
});

