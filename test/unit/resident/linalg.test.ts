// TSQR's tasks and the one-task qr / svd on device-resident data (worker/resident/linalg.ts)
// against a device in JS (fake-device.ts): which tasks the planner sends to the device, that the
// factors stay there between tasks (nothing downloaded until a result is read), that nothing
// leaks, and that the values equal the host handlers' with the js backend.
import { describe, expect, it } from 'vitest';
import type { NDArray } from '../../../common/arrays';
import type { TaskSpec } from '../../../common/tasks';
import type { ArrayBackend } from '../../../worker/kernels/backend';
import { createJsBackend } from '../../../worker/kernels/js';
import { qr } from '../../../worker/kernels/js/linalg';
import { planResident } from '../../../worker/resident/runner';
import { ResidentStore } from '../../../worker/resident/store';
import { lcgMatrix } from '../native/programs';
import { FakeDevice } from './fake-device';
import { maxAbsDiff, runBothWays, tsqrSteps, wholeSteps } from './linalg-chain';

const never = (): never => {
  throw new Error('the resident path must not call the backend itself');
};
// A cuda backend as the planner sees it (QR and SVD present); the work goes through the DeviceApi.
const cuda: ArrayBackend = { name: 'cuda', supportsProgram: () => true, runProgram: never, matmul: never, qr: never, svd: never };
const js = createJsBackend();
const blocks = (rows: number[], n: number): NDArray[] => rows.map((r, i) => lcgMatrix(r, n, 11 + i));

describe('resident linear algebra', () => {
  for (const svd of [true, false]) {
    it(`TSQR ${svd ? 'svd' : 'qr'}: every task on the device, nothing downloaded between tasks, values equal to js`, async () => {
      const dev = new FakeDevice();
      const which = tsqrSteps(3, svd);
      const r = await runBothWays(dev, [cuda, js], [js], blocks([9, 8, 6], 5), which);
      expect(Object.values(r.plans).every((p) => p !== null)).toBe(true);
      expect(r.plans).toMatchObject({ f0: 'qr-block', top: 'qr-top', q1: 'qr-combine' });
      // The three blocks went up once; no block, R or Q2 came down before the results were read.
      expect([r.before.uploads, r.before.downloads]).toEqual([3, 0]);
      for (const k of which.outputs) expect(maxAbsDiff(r.resident[k], r.host[k]), k).toBeLessThan(1e-12);
      for (const k of [...which.steps.map((s) => s.key), 'a0', 'a1', 'a2']) r.store.release(k);
      expect(dev.buffers.size).toBe(0);
    });

    it(`one-task ${svd ? 'svd' : 'qr'}: the blocks gathered on the device, picks share the factor's buffers`, async () => {
      const dev = new FakeDevice();
      const which = wholeSteps(4, svd);
      const r = await runBothWays(dev, [cuda, js], [js], blocks([7, 7, 7, 3], 6), which);
      expect(r.plans).toEqual(svd ? { f: 'factor-whole', 'pick-u': 'pick', 'pick-s': 'pick', 'pick-vt': 'pick' } : { f: 'factor-whole', 'pick-q': 'pick', 'pick-r': 'pick' });
      expect([r.before.uploads, r.before.downloads]).toEqual([4, 0]);
      for (const k of which.outputs) expect(maxAbsDiff(r.resident[k], r.host[k]), k).toBeLessThan(1e-12);
      // The bundle released first: its buffers go, the picks' ids of them stay (and the 4 blocks' device copies).
      const parts = which.outputs.length;
      expect(dev.buffers.size).toBe(2 * parts + 4);
      r.store.release('f');
      expect(dev.buffers.size).toBe(parts + 4);
      for (const k of which.outputs) expect(r.store.where(k)).toEqual({ host: true, device: true });
      for (const k of [...which.outputs, 'a0', 'a1', 'a2', 'a3']) r.store.release(k);
      expect(dev.buffers.size).toBe(0);
    });
  }

  it('a spilled bundle comes back part by part, and the steps that read it then run on the host', async () => {
    const dev = new FakeDevice();
    const r = await runBothWays(dev, [cuda, js], [js], blocks([6, 6], 4), { steps: tsqrSteps(2, true).steps.slice(0, 1), outputs: [] });
    // Room for nothing: the next allocation spills the bundle (both parts), downloading it first.
    const tight = r.store;
    Object.defineProperty(tight, 'deviceLimit', { value: 0 });
    await tight.makeRoom(8);
    expect(tight.where('f0')).toEqual({ host: true, device: false });
    const v = await tight.hostValue('f0');
    expect(v?.kind).toBe('arrays');
    if (v?.kind !== 'arrays') return;
    expect(Object.keys(v.arrays).sort()).toEqual(['q', 'r']);
    const want = qr(blocks([6], 4)[0]);
    expect(maxAbsDiff(v.arrays.q, want.q)).toBeLessThan(1e-13);
    expect(maxAbsDiff(v.arrays.r, want.r)).toBeLessThan(1e-13);
    expect(r.store.stats.spills).toBe(2); // a0's uploaded copy (older), then the bundle
    // qr-top over a host bundle: the host handlers, not the device.
    expect(planResident({ kind: 'array-op', op: 'qr-top', params: { svd: true } }, [cuda, js], [tight.inputInfo('f0')], true)).toBeNull();
  });

  it('plans only what the device path takes', () => {
    const f64 = { dtype: 'float64', shape: [10, 4], device: false };
    const qrBlock: TaskSpec = { kind: 'array-op', op: 'qr-block', params: {} };
    const whole: TaskSpec = { kind: 'array-op', op: 'factor-whole', params: { svd: true } };
    expect(planResident(qrBlock, [cuda, js], [f64], true)).toEqual({ kind: 'linalg', plan: { kind: 'qr-block' } });
    // Not without the device's linear algebra, a worker whose QR is another backend's, a cuda backend without QR / SVD, float32, or a wide block.
    expect(planResident(qrBlock, [cuda, js], [f64], false)).toBeNull();
    expect(planResident(qrBlock, [{ ...cuda, name: 'native-cpu' }, cuda, js], [f64], true)).toBeNull();
    expect(planResident(qrBlock, [{ ...cuda, qr: undefined, svd: undefined }, js], [f64], true)).toBeNull();
    expect(planResident(qrBlock, [cuda, js], [{ ...f64, dtype: 'float32' }], true)).toBeNull();
    expect(planResident(qrBlock, [cuda, js], [{ ...f64, shape: [3, 4] }], true)).toBeNull();
    // factor-whole: blocks of one width, m >= n in all.
    expect(planResident(whole, [cuda, js], [f64, { ...f64, shape: [2, 4] }], true)).toEqual({ kind: 'linalg', plan: { kind: 'factor-whole', svd: true } });
    expect(planResident(whole, [cuda, js], [f64, { ...f64, shape: [2, 5] }], true)).toBeNull();
    expect(planResident(whole, [cuda, js], [{ ...f64, shape: [3, 4] }], true)).toBeNull();
    // Steps that read bundles: only bundles on the device, holding the parts they read.
    const top: TaskSpec = { kind: 'array-op', op: 'qr-top', params: { svd: false } };
    expect(planResident(top, [cuda, js], [{ parts: ['q', 'r'], device: true }], true)).toEqual({ kind: 'linalg', plan: { kind: 'qr-top', svd: false } });
    expect(planResident(top, [cuda, js], [{ parts: ['q', 'r'], device: true }, null], true)).toBeNull();
    const combine: TaskSpec = { kind: 'array-op', op: 'qr-combine', params: { index: 1, svd: true } };
    expect(planResident(combine, [cuda, js], [{ parts: ['q', 'r'], device: true }, { parts: ['q2', 'r'], device: true }], true)).toBeNull();
    expect(planResident(combine, [cuda, js], [{ parts: ['q', 'r'], device: true }, { parts: ['q2', 'r', 'u', 's', 'vt'], device: true }], true)).toEqual({ kind: 'linalg', plan: { kind: 'qr-combine', index: 1, svd: true } });
    const pick: TaskSpec = { kind: 'array-op', op: 'pick', params: { name: 's' } };
    expect(planResident(pick, [cuda, js], [{ parts: ['u', 's', 'vt'], device: true }], true)).toEqual({ kind: 'linalg', plan: { kind: 'pick', name: 's' } });
    expect(planResident(pick, [cuda, js], [{ parts: ['q', 'r'], device: true }], true)).toBeNull();
    expect(new ResidentStore(null, 0).inputInfo('nothing')).toBeNull();
  });
});
