// The residency manager (worker/resident/) against a device in JS (fake-device.ts): chains keep
// their data on the device, values leave it once and lazily, memory pressure spills the least
// recently used chunk, release frees. Values are checked against the js backend on host data.
import { describe, expect, it } from 'vitest';
import type { ChunkValue, NDArray } from '../../../common/arrays';
import type { TaskSpec } from '../../../common/tasks';
import type { ArrayBackend } from '../../../worker/kernels/backend';
import { createJsBackend } from '../../../worker/kernels/js';
import { matmul } from '../../../worker/kernels/js/linalg/matmul';
import { runProgram } from '../../../worker/kernels/js/program';
import { planResident, runResident } from '../../../worker/resident/runner';
import { ResidentStore, type DeviceTraffic } from '../../../worker/resident/store';
import { elementwise, generate, generateUniform, sumSquares } from './chain';
import { FakeDevice } from './fake-device';

const never = (): never => {
  throw new Error('the resident path must not call the backend itself');
};
// A cuda backend as the planner sees it; the work goes through the DeviceApi.
const cuda: ArrayBackend = { name: 'cuda', supportsProgram: (p) => p.dtype === 'float64' || p.dtype === 'float32', runProgram: never, matmul: never };
const backends = [cuda, createJsBackend()];

/** What worker/main.ts does with a task on a GPU worker: plan, run on the device, hold the output. */
async function task(store: ResidentStore, dev: FakeDevice, key: string, spec: TaskSpec, deps: string[]): Promise<DeviceTraffic | null> {
  const leases = deps.map((d) => store.lease(d)!);
  try {
    const plan = planResident(spec, backends, leases.map((l) => store.arrayInfo(l.key)));
    if (!plan) return null;
    const r = await runResident(plan, leases, store, dev);
    if ('device' in r.output) store.putDevice(key, r.output.device);
    else store.putHost(key, r.output.value);
    return r.traffic;
  } finally {
    for (const l of leases) l.release();
  }
}

const prog = (p: TaskSpec & { kind: 'program' }) => p;
const program = (p: Parameters<typeof runProgram>[0]): TaskSpec => prog({ kind: 'program', program: p });
const mm: TaskSpec = { kind: 'array-op', op: 'matmul', params: { k: 1 } };
const arrayOf = (v: ChunkValue | undefined): NDArray => {
  if (v?.kind !== 'array') throw new Error(`expected an array, got ${v?.kind}`);
  return v.array;
};

describe('device-resident chunks', () => {
  it('keeps an unfused elementwise chain on the device and matches js', async () => {
    const dev = new FakeDevice();
    const store = new ResidentStore(dev, 1e9);
    const [r, c] = [6, 5];
    const bytes = r * c * 8;
    expect(await task(store, dev, 'x', program(generate('float64', r, c)), [])).toEqual({ reusedInputs: 0, reusedBytes: 0, uploadedBytes: 0, keptBytes: bytes });
    expect(await task(store, dev, 'y', program(elementwise('float64', r, c, false)), ['x'])).toEqual({ reusedInputs: 1, reusedBytes: bytes, uploadedBytes: 0, keptBytes: bytes });
    expect(await task(store, dev, 'z', program(elementwise('float64', r, c, true)), ['y', 'x'])).toEqual({ reusedInputs: 2, reusedBytes: 2 * bytes, uploadedBytes: 0, keptBytes: bytes });
    const s = await task(store, dev, 's', program(sumSquares('float64', r, c)), ['z']);
    expect(s).toEqual({ reusedInputs: 1, reusedBytes: bytes, uploadedBytes: 0, keptBytes: 0 });
    // Nothing crossed to the host: no upload, no download; the partial came back as a value.
    expect([dev.uploads, dev.downloads]).toEqual([0, 0]);
    expect(store.where('z')).toEqual({ host: false, device: true });
    expect(store.where('s')).toEqual({ host: true, device: false });
    // The oracle: the same programs on host values with the js kernels.
    const x = runProgram(generate('float64', r, c), []);
    const y = runProgram(elementwise('float64', r, c, false), [x]);
    const z = runProgram(elementwise('float64', r, c, true), [y, x]);
    const sum = runProgram(sumSquares('float64', r, c), [z]);
    expect(arrayOf(await store.hostValue('z')).data).toEqual(arrayOf(z).data);
    expect(await store.hostValue('s')).toEqual(sum);
    expect(dev.downloads).toBe(1);
  });

  it('chains matmul -> matmul on the device, uploading host operands once', async () => {
    const dev = new FakeDevice();
    const store = new ResidentStore(dev, 1e9);
    const a = runProgram(generate('float32', 4, 3), []);
    const b = runProgram(generateUniform('float32', 3, 3), []);
    store.putHost('a', a);
    store.putHost('b', b);
    const t1 = await task(store, dev, 'ab', mm, ['a', 'b']);
    expect(t1).toEqual({ reusedInputs: 0, reusedBytes: 0, uploadedBytes: (12 + 9) * 4, keptBytes: 12 * 4 });
    const t2 = await task(store, dev, 'abb', mm, ['ab', 'b']);
    expect(t2).toEqual({ reusedInputs: 2, reusedBytes: (12 + 9) * 4, uploadedBytes: 0, keptBytes: 12 * 4 });
    expect(dev.uploads).toBe(2);
    // Host operands keep their host copy beside the device one.
    expect(store.where('b')).toEqual({ host: true, device: true });
    const want = matmul(matmul(arrayOf(a), arrayOf(b)), arrayOf(b));
    const got = arrayOf(await store.hostValue('abb'));
    expect(got.dtype).toBe('float32');
    expect(got.shape).toEqual([4, 3]);
    expect(got.data).toEqual(want.data);
  });

  it('contracts k block products with the running sum on the device', async () => {
    const dev = new FakeDevice();
    const store = new ResidentStore(dev, 1e9);
    const blocks = [generate('float64', 3, 2, 1), generate('float64', 3, 4, 2), generate('float64', 2, 5, 3), generate('float64', 4, 5, 4)].map((p) => runProgram(p, []));
    blocks.forEach((v, i) => store.putHost(`m${i}`, v));
    await task(store, dev, 'c', { kind: 'array-op', op: 'matmul', params: { k: 2 } }, ['m0', 'm1', 'm2', 'm3']);
    const want = matmul(arrayOf(blocks[1]), arrayOf(blocks[3]), matmul(arrayOf(blocks[0]), arrayOf(blocks[2])));
    const got = arrayOf(await store.hostValue('c')).data;
    want.data.forEach((w, i) => expect(got[i]).toBeCloseTo(w as number, 12));
    // The intermediate product was freed: the device holds the four operands and the result.
    expect(dev.buffers.size).toBe(5);
  });

  it('copies a device chunk to the host once, however many ask at once', async () => {
    const dev = new FakeDevice();
    const store = new ResidentStore(dev, 1e9);
    await task(store, dev, 'x', program(generate('float64', 8, 8)), []);
    let open!: () => void;
    dev.gate = new Promise<void>((r) => (open = r));
    const asks = [store.hostValue('x'), store.hostValue('x'), store.hostValue('x')];
    open();
    const got = await Promise.all(asks);
    expect(await store.hostValue('x')).toBe(got[0]);
    expect(got[1]).toBe(got[0]);
    expect(dev.downloads).toBe(1);
    expect(store.where('x')).toEqual({ host: true, device: true });
    expect(arrayOf(got[0]).data).toEqual(arrayOf(runProgram(generate('float64', 8, 8), [])).data);
  });

  it('spills the least recently used chunk to the host under device-memory pressure', async () => {
    const dev = new FakeDevice();
    const chunk = 4 * 4 * 8;
    const store = new ResidentStore(dev, 2 * chunk);
    await task(store, dev, 'p', program(generate('float64', 4, 4, 1)), []);
    await task(store, dev, 'q', program(generate('float64', 4, 4, 2)), []);
    // q is used again, so p is the least recently used when r needs room.
    await task(store, dev, 'q2', program(elementwise('float64', 4, 4, false)), ['q']);
    expect(store.where('p')).toEqual({ host: true, device: false });
    expect(store.where('q')).toEqual({ host: false, device: true });
    expect(store.deviceBytes).toBeLessThanOrEqual(2 * chunk);
    expect(dev.liveBytes).toBe(store.deviceBytes);
    expect(store.stats.spills).toBe(1);
    expect(store.heldBytes).toBe(3 * chunk);
    // The spilled chunk is intact, and goes back up when a device task reads it.
    expect(arrayOf(await store.hostValue('p')).data).toEqual(arrayOf(runProgram(generate('float64', 4, 4, 1), [])).data);
    const t = await task(store, dev, 'p2', program(elementwise('float64', 4, 4, false)), ['p']);
    expect(t?.uploadedBytes).toBe(chunk);
    expect(dev.liveBytes).toBe(store.deviceBytes);
    expect(store.deviceBytes).toBeLessThanOrEqual(2 * chunk);
  });

  it('never spills a chunk a running task holds', async () => {
    const dev = new FakeDevice();
    const chunk = 2 * 2 * 8;
    const store = new ResidentStore(dev, chunk);
    await task(store, dev, 'x', program(generate('float64', 2, 2)), []);
    // x is the input of the running task: the output goes over the limit rather than evict it.
    await task(store, dev, 'y', program(elementwise('float64', 2, 2, false)), ['x']);
    expect(store.where('y')).toEqual({ host: false, device: true });
    expect(store.stats.spills).toBe(0);
    expect(dev.liveBytes).toBe(2 * chunk);
  });

  it('frees device memory on release, or when the last task reading it is done', async () => {
    const dev = new FakeDevice();
    const store = new ResidentStore(dev, 1e9);
    await task(store, dev, 'x', program(generate('float64', 3, 3)), []);
    await task(store, dev, 'y', program(elementwise('float64', 3, 3, false)), ['x']);
    store.release('x');
    expect(dev.buffers.size).toBe(1);
    const held = store.lease('y')!;
    store.release('y');
    expect(store.has('y')).toBe(false);
    expect(dev.buffers.size).toBe(1); // a task still reads it
    held.release();
    held.release(); // a second release of the same lease is a no-op
    expect([dev.buffers.size, store.deviceBytes, store.heldBytes]).toEqual([0, 0, 0]);
    expect(await store.hostValue('y')).toBeUndefined();
  });

  it('runs on host values where the device path does not apply', async () => {
    const dev = new FakeDevice();
    const store = new ResidentStore(dev, 1e9);
    // int32 programs are not cuda's: the planner says no and the worker runs them on host values.
    expect(planResident(program({ ...generate('float64', 2, 2), dtype: 'int32' }), backends, [])).toBeNull();
    expect(planResident({ kind: 'combine', finalize: true }, backends, [])).toBeNull();
    expect(planResident(program(generate('float64', 2, 2)), [createJsBackend()], [])).toBeNull();
    // matmul of mixed dtypes or a non-array stays on the host path, as linalg-handlers.ts does it.
    expect(planResident(mm, backends, [{ dtype: 'float64', shape: [2, 2] }, { dtype: 'float32', shape: [2, 2] }])).toBeNull();
    expect(planResident(mm, backends, [{ dtype: 'float64', shape: [2, 2] }, null])).toBeNull();
    expect(planResident(mm, backends, [{ dtype: 'float64', shape: [2, 2] }, { dtype: 'float64', shape: [2, 2] }])).toEqual({ kind: 'matmul', k: 1 });
    // An int64 input is passed as a host value (a device buffer never holds int64).
    store.putHost('i', { kind: 'array', array: { dtype: 'int64', shape: [2, 2], data: BigInt64Array.from([1n, 2n, 3n, 4n]) } });
    const l = store.lease('i')!;
    const d = await store.deviceOf(l);
    l.release();
    expect(d.reused).toBe(false);
    expect(dev.uploads).toBe(0);
    // A host-only store (residency off) is a plain map of values.
    const plain = new ResidentStore(null, 0);
    plain.putHost('v', { kind: 'json', value: 3 });
    expect(await plain.hostValue('v')).toEqual({ kind: 'json', value: 3 });
    expect(plain.heldBytes).toBe(1);
    plain.release('v');
    expect([plain.size, plain.heldBytes]).toEqual([0, 0]);
  });
});
