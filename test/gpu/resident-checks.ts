/**
 * GPU checks of device-resident chunks (worker/resident/ over the addon's resident calls): the
 * unfused elementwise chain and matmul -> matmul of test/unit/resident/chain.ts, run with their
 * data kept on the device, agree with the js backend on host data; the traffic bookkeeping says
 * what stayed on the device; spilled chunks come back intact; release leaves no device buffer.
 * Run by test/gpu/resident.test.ts (npm run test:gpu) and bench/native/device-run.ts --resident.
 */
import type { ChunkProgram, ChunkValue, NDArray } from '../../common/arrays';
import type { TaskSpec } from '../../common/tasks';
import type { NativeAddon } from '../../native/index';
import type { ArrayBackend } from '../../worker/kernels/backend';
import { createJsBackend } from '../../worker/kernels/js';
import { matmul } from '../../worker/kernels/js/linalg/matmul';
import { runProgram } from '../../worker/kernels/js/program';
import { addonDeviceApi } from '../../worker/resident/device-api';
import { planResident, runResident } from '../../worker/resident/runner';
import { ResidentStore, type DeviceTraffic } from '../../worker/resident/store';
import { mismatch } from '../unit/native/compare';
import { elementwise, generate, generateUniform, sumSquares } from '../unit/resident/chain';
import { checkList, maxRelDiff, type CheckResult } from './cuda-checks';

/** What worker/main.ts does with a task on a GPU worker with residency on. */
async function task(store: ResidentStore, addon: NativeAddon, backends: ArrayBackend[], key: string, spec: TaskSpec, deps: string[]): Promise<DeviceTraffic> {
  const leases = deps.map((d) => {
    const l = store.lease(d);
    if (!l) throw new Error(`${key}: '${d}' is not held`);
    return l;
  });
  try {
    const plan = planResident(spec, backends, leases.map((l) => store.arrayInfo(l.key)));
    if (!plan) throw new Error(`${key}: the planner did not put this task on the device`);
    const r = await runResident(plan, leases, store, addonDeviceApi(addon));
    if ('device' in r.output) store.putDevice(key, r.output.device);
    else store.putHost(key, r.output.value);
    return r.traffic;
  } finally {
    for (const l of leases) l.release();
  }
}

const prog = (program: ChunkProgram): TaskSpec => ({ kind: 'program', program });
const mm: TaskSpec = { kind: 'array-op', op: 'matmul', params: { k: 1 } };

function arrayOf(v: ChunkValue | undefined): NDArray {
  if (v?.kind !== 'array') throw new Error(`expected an array, got ${v?.kind}`);
  return v.array;
}

export async function runResidentChecks(addon: NativeAddon, cuda: ArrayBackend): Promise<CheckResult[]> {
  const { results, check } = checkList();
  const backends = [cuda, createJsBackend()];
  const blocksBefore = addon.cudaResidentStats().blocks;

  for (const dtype of ['float64', 'float32'] as const) {
    const [r, c] = [300, 257];
    // float32 starts from uniforms (bit-identical to js); float64 from normals (within 1e-15).
    const gen = dtype === 'float64' ? generate(dtype, r, c) : generateUniform(dtype, r, c);
    const rel = dtype === 'float64' ? 1e-12 : 1e-6;
    await check(`resident elementwise chain ${dtype}`, async () => {
      const store = new ResidentStore(addonDeviceApi(addon), 1e12);
      const bytes = r * c * (dtype === 'float64' ? 8 : 4);
      const t = [
        await task(store, addon, backends, 'x', prog(gen), []),
        await task(store, addon, backends, 'y', prog(elementwise(dtype, r, c, false)), ['x']),
        await task(store, addon, backends, 'z', prog(elementwise(dtype, r, c, true)), ['y', 'x']),
        await task(store, addon, backends, 's', prog(sumSquares(dtype, r, c)), ['z']),
      ];
      const reused = t.map((x) => x.reusedBytes).join();
      if (reused !== `0,${bytes},${2 * bytes},${bytes}`) return `reused bytes ${reused}`;
      if (t.some((x) => x.uploadedBytes !== 0)) return `uploads: ${t.map((x) => x.uploadedBytes).join()}`;
      const x = runProgram(gen, []);
      const y = runProgram(elementwise(dtype, r, c, false), [x]);
      const z = runProgram(elementwise(dtype, r, c, true), [y, x]);
      const s = runProgram(sumSquares(dtype, r, c), [z]);
      const zGot = await store.hostValue('z');
      const bad = mismatch(zGot!, z, false, rel) ?? mismatch((await store.hostValue('s'))!, s, false, dtype === 'float64' ? 1e-12 : 1e-5);
      if (bad) return bad;
      if (store.stats.downloads !== 1) return `${store.stats.downloads} downloads, want 1`;
      for (const k of ['x', 'y', 'z', 's']) store.release(k);
      return addon.cudaResidentStats().blocks === blocksBefore ? null : `${addon.cudaResidentStats().blocks - blocksBefore} device buffers left after release`;
    });

    await check(`resident matmul -> matmul ${dtype}`, async () => {
      const store = new ResidentStore(addonDeviceApi(addon), 1e12);
      const a = runProgram(generate(dtype, 96, 80, 3), []);
      const b = runProgram(generateUniform(dtype, 80, 80, 4), []);
      store.putHost('a', a);
      store.putHost('b', b);
      await task(store, addon, backends, 'ab', mm, ['a', 'b']);
      const t2 = await task(store, addon, backends, 'abb', mm, ['ab', 'b']);
      if (t2.reusedInputs !== 2 || t2.uploadedBytes !== 0) return `second product: ${JSON.stringify(t2)}`;
      // k = 2 block contraction, running sum on the device.
      await task(store, addon, backends, 'k2', { kind: 'array-op', op: 'matmul', params: { k: 2 } }, ['ab', 'abb', 'b', 'b']);
      const ab = matmul(arrayOf(a), arrayOf(b));
      const abb = matmul(ab, arrayOf(b));
      const k2 = matmul(abb, arrayOf(b), matmul(ab, arrayOf(b)));
      const tol = dtype === 'float64' ? 1e-12 : 1e-5;
      for (const [key, want] of [['abb', abb], ['k2', k2]] as const) {
        const got = arrayOf(await store.hostValue(key));
        if (got.dtype !== dtype || got.shape.join() !== want.shape.join()) return `${key}: ${got.dtype}[${got.shape}]`;
        const e = maxRelDiff(got.data as Float64Array, want.data as Float64Array);
        if (!(e <= tol)) return `${key}: max relative difference ${e}`;
      }
      for (const k of ['a', 'b', 'ab', 'abb', 'k2']) store.release(k);
      return addon.cudaResidentStats().blocks === blocksBefore ? null : `${addon.cudaResidentStats().blocks - blocksBefore} device buffers left after release`;
    });
  }

  await check('resident spill under a device budget keeps every chunk intact', async () => {
    const [r, c] = [128, 128];
    const chunk = r * c * 8;
    const store = new ResidentStore(addonDeviceApi(addon), 2 * chunk);
    for (let i = 0; i < 4; i++) await task(store, addon, backends, `g${i}`, prog(generate('float64', r, c, 20 + i)), []);
    if (store.stats.spills !== 2) return `${store.stats.spills} spills, want 2`;
    if (store.deviceBytes > 2 * chunk) return `device bytes ${store.deviceBytes} over the budget`;
    for (let i = 0; i < 4; i++) {
      const bad = mismatch((await store.hostValue(`g${i}`))!, runProgram(generate('float64', r, c, 20 + i), []), false, 1e-12);
      if (bad) return `g${i}: ${bad}`;
    }
    for (let i = 0; i < 4; i++) store.release(`g${i}`);
    return addon.cudaResidentStats().blocks === blocksBefore ? null : 'device buffers left after release';
  });

  await check('resident calls reject unknown ids and wrong buffers', async () => {
    const id = await addon.cudaResidentUpload(new Float64Array([1, 2, 3]));
    const back = new Float64Array(3);
    await addon.cudaResidentDownload(id, back);
    if (back.join() !== '1,2,3') return `round trip gave ${back.join()}`;
    let err = '';
    // Argument checks throw synchronously (TypeError), before any async work starts.
    try {
      await addon.cudaResidentDownload(id, new Float32Array(3));
    } catch (e) {
      err = e instanceof Error ? e.message : String(e);
    }
    if (!err.includes('element type')) return `float32 into a float64 buffer: '${err}'`;
    if (!addon.cudaResidentFree(id) || addon.cudaResidentFree(id)) return 'free of a live id must say true, then false';
    err = '';
    try {
      await addon.cudaResidentDownload(id, back);
    } catch (e) {
      err = e instanceof Error ? e.message : String(e);
    }
    return err.includes('no device buffer') ? null : `download of a freed id: '${err}'`;
  });
  return results;
}
