/**
 * worker/cuda-warmup.ts and the cuda backend's use of it: a GPU worker starts making its CUDA
 * context (the addon's cudaWarmContext, on a libuv thread) once, at start; the backend asks
 * cudaStatus() only after that, so it never makes the context on the JS thread, and never asks
 * info() (whose CPU BLAS lookup a GPU worker's start waited for); the cuBLAS / cuSOLVER phase
 * (cudaWarmLibraries) is queued only when main asks (`warmLibraries`: its graph has linear
 * algebra), once, after the context; the backend (the worker's `ready`) does not wait for it, but
 * matmul / qr / svd do. With a fake addon (the order of calls),
 * and with the real one (this machine has no GPU: the warm-up resolves and the backend reports
 * the addon's own reason).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

type Calls = string[];
type Mode = 'settle' | 'reject';

/** A fake addon: each warm-up phase settles when the test says (or rejects); cudaStatus() reports a usable device. */
function fakeAddon(calls: Calls, mode: Mode) {
  const settle: Record<string, () => void> = {};
  const phase = (name: string) => () => {
    calls.push(name);
    if (mode === 'reject') return Promise.reject(new Error('no device'));
    return new Promise<void>((r) => (settle[name] = () => (calls.push(`${name}:over`), r())));
  };
  const addon: Record<string, unknown> = {
    info: () => {
      calls.push('info');
      return { cuda: true, device: 'fake GPU', blas: '', hardwareThreads: 2, negativeStrides: true };
    },
    cudaStatus: () => {
      calls.push('cudaStatus');
      return { cuda: true };
    },
    runProgram: () => Promise.resolve(),
    cudaMatmul: (_a: Float64Array, _b: Float64Array, _c0: null, m: number, k: number, n: number, out: Float64Array) => {
      calls.push(`cudaMatmul ${m}x${k}x${n}`);
      out.fill(7);
      return Promise.resolve();
    },
  };
  addon.cudaWarmContext = phase('cudaWarmContext');
  addon.cudaWarmLibraries = phase('cudaWarmLibraries');
  return { addon, settle: (name: string) => settle[name]() };
}

async function withFake(mode: Mode) {
  vi.resetModules();
  const calls: Calls = [];
  const fake = fakeAddon(calls, mode);
  vi.doMock('../../../native/index', () => ({ loadNative: () => ({ addon: fake.addon }) }));
  const warmup = await import('../../../worker/cuda-warmup');
  const cuda = await import('../../../worker/kernels/cuda');
  return { calls, settle: fake.settle, warmup, cuda };
}

const tick = () => new Promise((r) => setTimeout(r, 10));
const matrix = (rows: number, cols: number) => ({ dtype: 'float64' as const, shape: [rows, cols], data: new Float64Array(rows * cols).fill(1) });

afterEach(() => {
  vi.doUnmock('../../../native/index');
  vi.resetModules();
});

describe('cuda warm-up', () => {
  it('starts only when the environment asks (GPU workers), once per process', async () => {
    const { calls, warmup } = await withFake('settle');
    expect(calls).toEqual([]); // imported without GPUFLOW_CUDA_WARMUP: nothing started
    expect(warmup.warmupFromEnv({})).toBeNull();
    expect(warmup.warmupFromEnv({ GPUFLOW_CUDA_WARMUP: '0' })).toBeNull();
    const p = warmup.warmupFromEnv({ GPUFLOW_CUDA_WARMUP: '1' });
    expect(p).not.toBeNull();
    expect(warmup.cudaWarmup()).toBe(p);
    expect(calls).toEqual(['cudaWarmContext']);
  });

  it('the backend is made once the context is; the library phase only when asked, once, and never awaited', async () => {
    const { calls, settle, warmup, cuda } = await withFake('settle');
    warmup.warmupFromEnv({ GPUFLOW_CUDA_WARMUP: '1' });
    const made = cuda.createWarmCudaBackend();
    await tick();
    expect(calls).toEqual(['cudaWarmContext']); // cudaStatus() waits for the context
    settle('cudaWarmContext');
    const backend = await made;
    expect('name' in backend && backend.name).toBe('cuda');
    await tick();
    expect(calls).toEqual(['cudaWarmContext', 'cudaWarmContext:over', 'cudaStatus']); // not asked: no library phase
    warmup.warmLibraries();
    warmup.warmLibraries();
    await tick();
    expect(calls).toEqual(['cudaWarmContext', 'cudaWarmContext:over', 'cudaStatus', 'cudaWarmLibraries']); // it never settles in this test
  });

  it('matmul waits for the library phase, then runs', async () => {
    const { calls, settle, warmup, cuda } = await withFake('settle');
    warmup.warmupFromEnv({ GPUFLOW_CUDA_WARMUP: '1' });
    warmup.warmLibraries(); // main's warm-libraries, before the context is made
    settle('cudaWarmContext');
    const backend = await cuda.createWarmCudaBackend();
    if (!('matmul' in backend) || !backend.matmul) throw new Error('no matmul');
    const product = backend.matmul(matrix(2, 3), matrix(3, 4));
    await tick();
    expect(calls.filter((c) => c.startsWith('cudaMatmul'))).toEqual([]);
    settle('cudaWarmLibraries');
    const c = await product;
    expect(c.shape).toEqual([2, 4]);
    expect([...c.data]).toEqual(new Array(8).fill(7));
    expect(calls.slice(-2)).toEqual(['cudaWarmLibraries:over', 'cudaMatmul 2x3x4']);
  });

  it('with no warm-up started, matmul does not wait (the addon makes its own handle)', async () => {
    const { calls, warmup, cuda } = await withFake('settle');
    await expect(warmup.librariesReady()).resolves.toBeUndefined();
    const backend = cuda.createCudaBackend();
    if (!('matmul' in backend) || !backend.matmul) throw new Error('no matmul');
    await backend.matmul(matrix(1, 1), matrix(1, 1));
    expect(calls).toEqual(['cudaStatus', 'cudaMatmul 1x1x1']);
  });

  it('never rejects: a failed warm-up leaves the answer to cudaStatus()', async () => {
    const { calls, cuda, warmup } = await withFake('reject');
    const made = cuda.createWarmCudaBackend();
    warmup.warmLibraries();
    const backend = await made;
    expect('name' in backend && backend.name).toBe('cuda');
    await expect(warmup.librariesReady()).resolves.toBeUndefined();
    expect(calls).toEqual(['cudaWarmContext', 'cudaStatus', 'cudaWarmLibraries']);
  });

  it('with the real addon on a machine without a GPU: both phases resolve, and the backend gives the addon’s reason', async () => {
    vi.resetModules();
    const { loadNative } = await import('../../../native/index');
    const n = loadNative();
    if ('unavailable' in n) return expect(n.unavailable).toMatch(/addon|GPUFLOW_NO_NATIVE/);
    expect(typeof n.addon.cudaWarmContext).toBe('function');
    expect(typeof n.addon.cudaWarmLibraries).toBe('function');
    const { cudaWarmup, librariesReady, warmLibraries } = await import('../../../worker/cuda-warmup');
    await expect(cudaWarmup()).resolves.toBeUndefined();
    warmLibraries(); // the handles and first gemms: nothing to make here, and it says so by resolving
    await expect(librariesReady()).resolves.toBeUndefined();
    const info = n.addon.info();
    const { createWarmCudaBackend } = await import('../../../worker/kernels/cuda');
    const backend = await createWarmCudaBackend();
    if (info.cuda) expect('name' in backend && backend.name).toBe('cuda');
    else expect(backend).toEqual({ unavailable: info.cudaReason });
  });
});
