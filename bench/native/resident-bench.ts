/**
 * Device-resident chunks on the GPU machine (bench/native/device-run.ts --resident): C = A B then
 * D = C B, n x n, through the cuda backend with host arrays in and out of each product (what a
 * worker does with residency off), and through the residency manager (worker/resident/) with C
 * kept on the device (A and B uploaded once, D downloaded once). Best of `reps`, seconds; the
 * CuPy baseline (resident_baseline.py) does the same two ways in the same run.
 */
import { execFileSync } from 'node:child_process';
import type { NDArray } from '../../common/arrays';
import type { TaskSpec } from '../../common/tasks';
import type { NativeAddon } from '../../native/index';
import type { ArrayBackend } from '../../worker/kernels/backend';
import { addonDeviceApi } from '../../worker/resident/device-api';
import { planResident, runResident } from '../../worker/resident/runner';
import { ResidentStore } from '../../worker/resident/store';
import { uniformMatrix } from './matrices';

type Row = Record<string, string | number | boolean | null>;

async function best(reps: number, f: () => Promise<void>): Promise<number> {
  let b = Infinity;
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await f();
    b = Math.min(b, (performance.now() - t) / 1000);
  }
  return b;
}

export async function runResidentBench(addon: NativeAddon, cuda: ArrayBackend, runs: { dtype: 'float64' | 'float32'; n: number; reps: number }[], log: (r: Row) => void, baselines: boolean): Promise<void> {
  const mm: TaskSpec = { kind: 'array-op', op: 'matmul', params: { k: 1 } };
  for (const { dtype, n, reps } of runs) {
    const a = uniformMatrix(n, n, dtype, 1);
    const b = uniformMatrix(n, n, dtype, 2);
    await cuda.matmul!(uniformMatrix(256, 256, dtype, 3), uniformMatrix(256, 256, dtype, 4)); // warm-up: cuBLAS load, pool
    // Copies through the pinned staging pool alone (pageable JS memory <-> device), GB/s each way.
    const back = new (dtype === 'float32' ? Float32Array : Float64Array)(n * n);
    let up = Infinity;
    let down = Infinity;
    for (let i = 0; i < reps + 1; i++) {
      let t = performance.now();
      const id = await addon.cudaResidentUpload(a.data as Float64Array);
      up = Math.min(up, (performance.now() - t) / 1000);
      t = performance.now();
      await addon.cudaResidentDownload(id, back);
      down = Math.min(down, (performance.now() - t) / 1000);
      addon.cudaResidentFree(id);
    }
    if (back[n * n - 1] !== a.data[n * n - 1]) throw new Error('staged copy round trip changed the data');
    log({ kind: 'stagedCopy', impl: 'gpuflow pinned staging (host -> device)', dtype, n, seconds: up, gbPerSecond: a.data.byteLength / up / 1e9 });
    log({ kind: 'stagedCopy', impl: 'gpuflow pinned staging (device -> host)', dtype, n, seconds: down, gbPerSecond: a.data.byteLength / down / 1e9 });
    const flops = 2 * 2 * n ** 3;
    const host = await best(reps, async () => {
      const c = await cuda.matmul!(a, b);
      await cuda.matmul!(c, b);
    });
    log({ kind: 'matmulChain', impl: 'gpuflow cuda (host round trips)', dtype, n, seconds: host, tflops: flops / host / 1e12, hostDeviceBytes: 6 * a.data.byteLength });
    let traffic = { reusedBytes: 0, uploadedBytes: 0, downloadedBytes: 0 };
    const resident = await best(reps, async () => {
      const store = new ResidentStore(addonDeviceApi(addon), 1e12);
      store.putHost('a', { kind: 'array', array: a });
      store.putHost('b', { kind: 'array', array: b });
      traffic = { reusedBytes: 0, uploadedBytes: 0, downloadedBytes: 0 };
      for (const [key, deps] of [['c', ['a', 'b']], ['d', ['c', 'b']]] as const) {
        const leases = deps.map((d) => store.lease(d)!);
        const plan = planResident(mm, [cuda], leases.map((l) => store.arrayInfo(l.key)));
        if (!plan) throw new Error('matmul did not plan onto the device');
        const r = await runResident(plan, leases, store, addonDeviceApi(addon));
        leases.forEach((l) => l.release());
        if (!('device' in r.output)) throw new Error('matmul output is not on the device');
        store.putDevice(key, r.output.device);
        traffic.reusedBytes += r.traffic.reusedBytes;
        traffic.uploadedBytes += r.traffic.uploadedBytes;
      }
      await store.hostValue('d'); // the result leaves the worker
      traffic.downloadedBytes = store.stats.downloadBytes;
      for (const k of ['a', 'b', 'c', 'd']) store.release(k);
    });
    log({ kind: 'matmulChain', impl: 'gpuflow cuda (device-resident)', dtype, n, seconds: resident, tflops: flops / resident / 1e12, hostDeviceBytes: traffic.uploadedBytes + traffic.downloadedBytes, savedBytes: 6 * a.data.byteLength - traffic.uploadedBytes - traffic.downloadedBytes, reusedBytes: traffic.reusedBytes, speedup: host / resident });
  }
  log({ kind: 'matmulChain', impl: 'pinned staging pool', pinnedBytes: addon.cudaResidentStats().pinnedBytes });
  if (!baselines) return;
  try {
    const text = execFileSync('python3', ['bench/native/resident_baseline.py', JSON.stringify({ runs })], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24, timeout: 120_000 });
    const got = JSON.parse(text.trim().split('\n').pop()!) as { results: Row[]; error?: string; cupy?: string };
    if (got.error) log({ kind: 'matmulChain', impl: 'cupy', error: got.error });
    for (const r of got.results) log({ ...r, cupy: got.cupy ?? null });
  } catch (e) {
    log({ kind: 'matmulChain', impl: 'cupy', error: e instanceof Error ? e.message.split('\n')[0] : String(e) });
  }
}
