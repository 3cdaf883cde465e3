/**
 * worker/cuda-warmup.ts and the cuda backend's use of it: a GPU worker starts making its CUDA
 * context (the addon's cudaWarmup, on a libuv thread) once, at start, and the backend asks info()
 * only after that is over, so info() never makes the context on the JS thread. With a fake addon
 * (the order of calls), and with the real one (this machine has no GPU: the warm-up resolves and
 * the backend reports the addon's own reason).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

type Calls = string[];

/** A fake addon: cudaWarmup settles when the test says; info() reports a usable device. */
function fakeAddon(calls: Calls, warm: 'manual' | 'reject' | 'absent') {
  let settle: () => void = () => undefined;
  const addon: Record<string, unknown> = {
    info: () => {
      calls.push('info');
      return { cuda: true, device: 'fake GPU', blas: '', hardwareThreads: 2, negativeStrides: true };
    },
    runProgram: () => Promise.resolve(),
  };
  if (warm !== 'absent') {
    addon.cudaWarmup = () => {
      calls.push('cudaWarmup');
      return warm === 'reject' ? Promise.reject(new Error('no device')) : new Promise<void>((r) => (settle = () => (calls.push('warm'), r())));
    };
  }
  return { addon, settle: () => settle() };
}

async function withFake(warm: 'manual' | 'reject' | 'absent') {
  vi.resetModules();
  const calls: Calls = [];
  const fake = fakeAddon(calls, warm);
  vi.doMock('../../../native/index', () => ({ loadNative: () => ({ addon: fake.addon }) }));
  const warmup = await import('../../../worker/cuda-warmup');
  const cuda = await import('../../../worker/kernels/cuda');
  return { calls, settle: fake.settle, warmup, cuda };
}

afterEach(() => {
  vi.doUnmock('../../../native/index');
  vi.resetModules();
});

describe('cuda warm-up', () => {
  it('starts only when the environment asks (GPU workers), once per process', async () => {
    const { calls, warmup } = await withFake('manual');
    expect(calls).toEqual([]); // imported without GPUFLOW_CUDA_WARMUP: nothing started
    expect(warmup.warmupFromEnv({})).toBeNull();
    expect(warmup.warmupFromEnv({ GPUFLOW_CUDA_WARMUP: '0' })).toBeNull();
    const p = warmup.warmupFromEnv({ GPUFLOW_CUDA_WARMUP: '1' });
    expect(p).not.toBeNull();
    expect(warmup.cudaWarmup()).toBe(p);
    expect(calls).toEqual(['cudaWarmup']);
  });

  it('makes the backend call info() only once the warm-up is over', async () => {
    const { calls, settle, warmup, cuda } = await withFake('manual');
    warmup.warmupFromEnv({ GPUFLOW_CUDA_WARMUP: '1' });
    const made = cuda.createWarmCudaBackend();
    await new Promise((r) => setTimeout(r, 10));
    expect(calls).toEqual(['cudaWarmup']);
    settle();
    const backend = await made;
    expect('name' in backend && backend.name).toBe('cuda');
    expect(calls.slice(0, 3)).toEqual(['cudaWarmup', 'warm', 'info']);
    expect(calls.filter((c) => c === 'cudaWarmup')).toHaveLength(1);
  });

  it('never rejects: a failed warm-up or an addon without one leaves the answer to info()', async () => {
    for (const mode of ['reject', 'absent'] as const) {
      const { calls, cuda } = await withFake(mode);
      const backend = await cuda.createWarmCudaBackend();
      expect('name' in backend && backend.name).toBe('cuda');
      expect(calls).toEqual(mode === 'reject' ? ['cudaWarmup', 'info', 'info'] : ['info', 'info']);
    }
  });

  it('with the real addon on a machine without a GPU: resolves, and the backend gives the addon’s reason', async () => {
    vi.resetModules();
    const { loadNative } = await import('../../../native/index');
    const n = loadNative();
    if ('unavailable' in n) return expect(n.unavailable).toMatch(/addon|GPUFLOW_NO_NATIVE/);
    expect(typeof n.addon.cudaWarmup).toBe('function');
    const { cudaWarmup } = await import('../../../worker/cuda-warmup');
    await expect(cudaWarmup()).resolves.toBeUndefined();
    const info = n.addon.info();
    const { createWarmCudaBackend } = await import('../../../worker/kernels/cuda');
    const backend = await createWarmCudaBackend();
    if (info.cuda) expect('name' in backend && backend.name).toBe('cuda');
    else expect(backend).toEqual({ unavailable: info.cudaReason });
  });
});
