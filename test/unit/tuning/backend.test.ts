import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { GPU_MIN_MACS_PER_ROW, macsPerRow, selectTfjsBackend, trialBackend, type TfjsBackendName, type TfjsEnvironment } from '../../../worker/kernels/tfjs/backend';

/** A fake world: which packages import, which backends activate, whether libtensorflow sees a GPU. */
function fakeEnv(present: string[], gpuVisible?: boolean, cudaWhy: string | null = 'no CUDA device (test)'): TfjsEnvironment & { active: string | null } {
  const env = {
    active: null as string | null,
    async importModule(spec: string) {
      if (!present.includes(spec)) throw new Error(`Cannot find package '${spec}' imported from worker\nstack...`);
      return {};
    },
    async setBackend(name: TfjsBackendName) {
      const provider = { 'gpuflow-cuda': [], tensorflow: ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node'], wasm: ['@tensorflow/tfjs-backend-wasm'], cpu: [] }[name];
      if (name !== 'cpu' && name !== 'gpuflow-cuda' && !provider.some((p) => present.includes(p))) return false;
      env.active = name;
      return true;
    },
    usingGpu: () => gpuVisible,
    registerGpuflowCuda: () => cudaWhy,
  };
  return env;
}

const NO_CUDA = { name: 'gpuflow-cuda', ok: false, reason: 'no CUDA device (test)' };

describe('tfjs backend selection', () => {
  it('GPU worker whose addon has CUDA picks gpuflow-cuda, with wasm beside it for small trials', async () => {
    const env = fakeEnv(['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-backend-wasm'], true, null);
    const s = await selectTfjsBackend({ gpu: true, env });
    expect(s).toEqual({ backend: 'gpuflow-cuda', candidate: 'gpuflow-cuda', gpuRequestedButCpu: false, smallTrials: 'wasm', tried: [{ name: 'gpuflow-cuda', ok: true, reason: 'loaded' }] });
    expect(env.active).toBe('gpuflow-cuda');
  });

  it('CPU worker never registers gpuflow-cuda, even where the addon has CUDA', async () => {
    const s = await selectTfjsBackend({ gpu: false, env: fakeEnv(['@tensorflow/tfjs-backend-wasm'], undefined, null) });
    expect(s.backend).toBe('wasm');
    expect(s.tried[0]).toEqual({ name: 'gpuflow-cuda', ok: false, reason: 'skipped: not a GPU worker' });
  });

  it('per trial: small models go to the CPU backend beside gpuflow-cuda, large ones to the GPU, and the record says why', () => {
    const sel = { backend: 'gpuflow-cuda' as const, candidate: 'gpuflow-cuda' as const, tried: [], gpuRequestedButCpu: false, smallTrials: 'wasm' as const };
    // small-mlp: 10 features, 32 + 32 units, 3 classes = 320 + 1024 + 96
    expect(macsPerRow([10, 32, 32, 3])).toBe(1440);
    expect(trialBackend(sel, 1440)).toEqual({ backend: 'wasm', rule: `1440 multiply-adds per row < ${GPU_MIN_MACS_PER_ROW}: wasm (faster than the GPU for small models)` });
    // mnist-mlp: 784 x 512 + 512 x 512 x 2 + 512 x 10
    expect(macsPerRow([784, 512, 512, 512, 10])).toBe(930816);
    expect(trialBackend(sel, 930816).backend).toBe('gpuflow-cuda');
    expect(trialBackend({ ...sel, backend: 'wasm', candidate: 'wasm', smallTrials: undefined }, 930816)).toEqual({ backend: 'wasm' });
  });

  it('GPU worker with tfjs-node-gpu seeing its GPU', async () => {
    const s = await selectTfjsBackend({ gpu: true, env: fakeEnv(['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node'], true) });
    expect(s).toEqual({ backend: 'tensorflow', candidate: 'tfjs-node-gpu', gpuRequestedButCpu: false, tried: [NO_CUDA, { name: 'tfjs-node-gpu', ok: true, reason: 'loaded' }] });
  });

  it('GPU worker whose libtensorflow finds no GPU says so', async () => {
    const s = await selectTfjsBackend({ gpu: true, env: fakeEnv(['@tensorflow/tfjs-node-gpu'], false) });
    expect(s.candidate).toBe('tfjs-node-gpu');
    expect(s.gpuRequestedButCpu).toBe(true);
    expect(s.tried[1].reason).toMatch(/no GPU/);
  });

  it('GPU worker without tfjs-node-gpu falls back to tfjs-node and flags the CPU fallback', async () => {
    const s = await selectTfjsBackend({ gpu: true, env: fakeEnv(['@tensorflow/tfjs-node']) });
    expect(s.backend).toBe('tensorflow');
    expect(s.candidate).toBe('tfjs-node');
    expect(s.gpuRequestedButCpu).toBe(true);
    expect(s.tried).toEqual([
      NO_CUDA,
      { name: 'tfjs-node-gpu', ok: false, reason: "Cannot find package '@tensorflow/tfjs-node-gpu' imported from worker" },
      { name: 'tfjs-node', ok: true, reason: 'loaded' },
    ]);
  });

  it('CPU worker never tries the GPU package', async () => {
    const s = await selectTfjsBackend({ gpu: false, env: fakeEnv(['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node']) });
    expect(s.candidate).toBe('tfjs-node');
    expect(s.gpuRequestedButCpu).toBe(false);
    expect(s.tried[0]).toEqual({ name: 'gpuflow-cuda', ok: false, reason: 'skipped: not a GPU worker' });
    expect(s.tried[1]).toEqual({ name: 'tfjs-node-gpu', ok: false, reason: 'skipped: not a GPU worker' });
  });

  it('only wasm present', async () => {
    const s = await selectTfjsBackend({ gpu: false, env: fakeEnv(['@tensorflow/tfjs-backend-wasm']) });
    expect(s.backend).toBe('wasm');
    expect(s.tried.map((t) => [t.name, t.ok])).toEqual([['gpuflow-cuda', false], ['tfjs-node-gpu', false], ['tfjs-node', false], ['wasm', true]]);
  });

  it('nothing but plain JS: cpu, every failure recorded', async () => {
    const env = fakeEnv([]);
    const s = await selectTfjsBackend({ gpu: true, env });
    expect(s.backend).toBe('cpu');
    expect(s.gpuRequestedButCpu).toBe(true);
    expect(s.tried.map((t) => [t.name, t.ok])).toEqual([['gpuflow-cuda', false], ['tfjs-node-gpu', false], ['tfjs-node', false], ['wasm', false], ['cpu', true]]);
    expect(env.active).toBe('cpu');
  });

  it('a package that imports but whose backend does not activate is skipped with the reason', async () => {
    const env = fakeEnv(['@tensorflow/tfjs-backend-wasm']);
    env.setBackend = async (name) => name === 'cpu';
    const s = await selectTfjsBackend({ gpu: false, env });
    expect(s.backend).toBe('cpu');
    expect(s.tried[3]).toEqual({ name: 'wasm', ok: false, reason: "tf.setBackend('wasm') did not activate it" });
  });

  it('in this install (no native packages) the real environment picks wasm and it computes', async () => {
    const s = await selectTfjsBackend({ gpu: false });
    const nativeOk = s.tried.some((t) => t.name === 'tfjs-node' && t.ok);
    if (nativeOk) return; // a machine with libtensorflow: nothing to check here
    expect(s.backend).toBe('wasm');
    expect(tf.getBackend()).toBe('wasm');
    expect(Array.from(tf.matMul(tf.tensor2d([[1, 2], [3, 4]]), tf.tensor2d([[5], [6]])).dataSync())).toEqual([17, 39]);
  });
});
