import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { selectTfjsBackend, type TfjsBackendName, type TfjsEnvironment } from '../../../worker/kernels/tfjs/backend';

/** A fake world: which packages import, which backends activate, whether libtensorflow sees a GPU. */
function fakeEnv(present: string[], gpuVisible?: boolean): TfjsEnvironment & { active: string | null } {
  const env = {
    active: null as string | null,
    async importModule(spec: string) {
      if (!present.includes(spec)) throw new Error(`Cannot find package '${spec}' imported from worker\nstack...`);
      return {};
    },
    async setBackend(name: TfjsBackendName) {
      const provider = { tensorflow: ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node'], wasm: ['@tensorflow/tfjs-backend-wasm'], cpu: [] }[name];
      if (name !== 'cpu' && !provider.some((p) => present.includes(p))) return false;
      env.active = name;
      return true;
    },
    usingGpu: () => gpuVisible,
  };
  return env;
}

describe('tfjs backend selection', () => {
  it('GPU worker with tfjs-node-gpu seeing its GPU', async () => {
    const s = await selectTfjsBackend({ gpu: true, env: fakeEnv(['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node'], true) });
    expect(s).toEqual({ backend: 'tensorflow', candidate: 'tfjs-node-gpu', gpuRequestedButCpu: false, tried: [{ name: 'tfjs-node-gpu', ok: true, reason: 'loaded' }] });
  });

  it('GPU worker whose libtensorflow finds no GPU says so', async () => {
    const s = await selectTfjsBackend({ gpu: true, env: fakeEnv(['@tensorflow/tfjs-node-gpu'], false) });
    expect(s.candidate).toBe('tfjs-node-gpu');
    expect(s.gpuRequestedButCpu).toBe(true);
    expect(s.tried[0].reason).toMatch(/no GPU/);
  });

  it('GPU worker without tfjs-node-gpu falls back to tfjs-node and flags the CPU fallback', async () => {
    const s = await selectTfjsBackend({ gpu: true, env: fakeEnv(['@tensorflow/tfjs-node']) });
    expect(s.backend).toBe('tensorflow');
    expect(s.candidate).toBe('tfjs-node');
    expect(s.gpuRequestedButCpu).toBe(true);
    expect(s.tried).toEqual([
      { name: 'tfjs-node-gpu', ok: false, reason: "Cannot find package '@tensorflow/tfjs-node-gpu' imported from worker" },
      { name: 'tfjs-node', ok: true, reason: 'loaded' },
    ]);
  });

  it('CPU worker never tries the GPU package', async () => {
    const s = await selectTfjsBackend({ gpu: false, env: fakeEnv(['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node']) });
    expect(s.candidate).toBe('tfjs-node');
    expect(s.gpuRequestedButCpu).toBe(false);
    expect(s.tried[0]).toEqual({ name: 'tfjs-node-gpu', ok: false, reason: 'skipped: not a GPU worker' });
  });

  it('only wasm present', async () => {
    const s = await selectTfjsBackend({ gpu: false, env: fakeEnv(['@tensorflow/tfjs-backend-wasm']) });
    expect(s.backend).toBe('wasm');
    expect(s.tried.map((t) => [t.name, t.ok])).toEqual([['tfjs-node-gpu', false], ['tfjs-node', false], ['wasm', true]]);
  });

  it('nothing but plain JS: cpu, every failure recorded', async () => {
    const env = fakeEnv([]);
    const s = await selectTfjsBackend({ gpu: true, env });
    expect(s.backend).toBe('cpu');
    expect(s.gpuRequestedButCpu).toBe(true);
    expect(s.tried.map((t) => [t.name, t.ok])).toEqual([['tfjs-node-gpu', false], ['tfjs-node', false], ['wasm', false], ['cpu', true]]);
    expect(env.active).toBe('cpu');
  });

  it('a package that imports but whose backend does not activate is skipped with the reason', async () => {
    const env = fakeEnv(['@tensorflow/tfjs-backend-wasm']);
    env.setBackend = async (name) => name === 'cpu';
    const s = await selectTfjsBackend({ gpu: false, env });
    expect(s.backend).toBe('cpu');
    expect(s.tried[2]).toEqual({ name: 'wasm', ok: false, reason: "tf.setBackend('wasm') did not activate it" });
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
