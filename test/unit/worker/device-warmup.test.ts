/**
 * worker/device-warmup.ts: the tiny programs a GPU worker runs before it says ready are programs
 * the cuda backend takes, and compute what the js reference computes (a malformed sample would
 * fail on the GPU, be counted as failed and warm nothing); each runs once per libuv thread, at
 * most that many at once; every device buffer it makes is freed; a failing device never makes it
 * reject.
 */
import { describe, expect, it } from 'vitest';
import type { ChunkProgram, ChunkValue, NDArray } from '../../../common/arrays';
import { fakeCudaAddon } from '../../../native/fake-cuda';
import { loadNative } from '../../../native/index';
import { unsupportedReason } from '../../../native/program-code';
import { runProgram as jsProgram } from '../../../worker/kernels/js/program';
import { deviceWarmupWhen, WARM_PROGRAMS, warmDevice, warmThreads } from '../../../worker/device-warmup';
import { addonDeviceApi, type DeviceApi } from '../../../worker/resident/device-api';

const loaded = loadNative();

/** A DeviceApi that records calls, `inFlight` at most, and fails programs when `fail` says. */
function recording(fail = false) {
  const log = { programs: [] as ChunkProgram[], freed: [] as number[], uploads: 0, downloads: 0, most: 0 };
  let inFlight = 0;
  let next = 1;
  const api: DeviceApi = {
    async upload() {
      log.uploads++;
      return next++;
    },
    async download(ref) {
      log.downloads++;
      return { dtype: ref.dtype, shape: ref.shape, data: new Float64Array(8) } satisfies NDArray;
    },
    free: (id) => void log.freed.push(id),
    async runProgram(p) {
      inFlight++;
      log.most = Math.max(log.most, inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      if (fail) throw new Error('CUDA launch failed');
      log.programs.push(p);
      const value: ChunkValue = { kind: 'json', value: 0 };
      return p.reduce ? { value } : { id: next++ };
    },
    matmul: async () => 0,
  };
  return { api, log };
}

describe('device warm-up', () => {
  it('runs programs the cuda backend takes: the seed families in both float dtypes', () => {
    expect(WARM_PROGRAMS.map((p) => `${p.dtype} ${p.reduce ? 'sum' : 'array'}`)).toEqual([
      'float64 sum',
      'float64 sum',
      'float64 array',
      'float32 sum',
      'float32 sum',
      'float32 array',
    ]);
    for (const p of WARM_PROGRAMS) expect(unsupportedReason(p, { negativeStrides: true })).toBeNull();
  });

  it.skipIf('unavailable' in loaded)('computes on the addon what the js reference computes, and frees what it made', async () => {
    if ('unavailable' in loaded) return;
    // The addon's CUDA entry points answered by its CPU kernels, as on a fake-cuda GPU worker.
    const addon = fakeCudaAddon(loaded.addon);
    const api = addonDeviceApi(addon);
    for (const p of WARM_PROGRAMS) {
      const got = await api.runProgram(p, []);
      const want = jsProgram(p, []);
      if ('id' in got) {
        const arr = await api.download({ id: got.id, dtype: p.dtype === 'float32' ? 'float32' : 'float64', shape: p.shape, bytes: 0 });
        api.free(got.id);
        if (want.kind !== 'array') throw new Error('js gave no array');
        // Normals match to a relative 1e-12 across backends (docs/random.md: libm's last bits).
        expect(arr.data.length).toBe(want.array.data.length);
        Array.from(arr.data, Number).forEach((x, i) => expect(Math.abs(x - Number(want.array.data[i]))).toBeLessThan(1e-12 * Math.abs(x)));
      } else {
        if (got.value.kind !== 'partial' || want.kind !== 'partial') throw new Error('not a partial');
        const [g, w] = [got.value.partial.fields.sum[0], want.partial.fields.sum[0]];
        // 64 normal(10, 1) samples plus 1: near 704, the same to rounding on both.
        expect(g).toBeGreaterThan(600);
        expect(Math.abs(g - w)).toBeLessThan(1e-12 * Math.abs(w));
      }
    }
    const r = await warmDevice(api, 4);
    expect(r).toEqual({ programs: 4 * WARM_PROGRAMS.length, failed: 0 });
    expect(addon.cudaResidentStats?.().blocks).toBe(0);
  });

  it('runs each program once per thread, at most that many at once, then one array up and back', async () => {
    const { api, log } = recording();
    const r = await warmDevice(api, 3);
    expect(r).toEqual({ programs: 3 * WARM_PROGRAMS.length, failed: 0 });
    expect(log.most).toBe(3);
    // In order: the sliced float64 seed's three first.
    expect(log.programs.slice(0, 3).every((p) => p === WARM_PROGRAMS[0])).toBe(true);
    expect([log.uploads, log.downloads]).toEqual([1, 1]);
    // Every device output (the two array programs, 3 times each) and the uploaded array freed.
    expect(log.freed).toHaveLength(2 * 3 + 1);
  });

  it('never rejects on a failing device: the failures are counted and left for the first task', async () => {
    const { api } = recording(true);
    expect(await warmDevice(api, 2)).toEqual({ programs: 0, failed: 2 * WARM_PROGRAMS.length });
  });

  it('uses one call per libuv thread, bounded by the task concurrency; GPUFLOW_WARM_DEVICE=0 turns it off, =after moves it after ready', () => {
    expect(warmThreads(16, { UV_THREADPOOL_SIZE: '16' })).toBe(16);
    expect(warmThreads(16, {})).toBe(4); // libuv's default pool
    expect(warmThreads(2, { UV_THREADPOOL_SIZE: '16' })).toBe(2);
    expect(warmThreads(16, { UV_THREADPOOL_SIZE: 'x' })).toBe(4);
    expect(deviceWarmupWhen({})).toBe('before-ready');
    expect(deviceWarmupWhen({ GPUFLOW_WARM_DEVICE: '1' })).toBe('before-ready');
    expect(deviceWarmupWhen({ GPUFLOW_WARM_DEVICE: 'after' })).toBe('after-ready');
    expect(deviceWarmupWhen({ GPUFLOW_WARM_DEVICE: '0' })).toBe('off');
  });
});
