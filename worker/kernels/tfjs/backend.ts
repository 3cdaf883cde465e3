/**
 * Picks the TensorFlow.js backend a worker trains on, in order of speed:
 *
 *   0. gpuflow-cuda               (GPU workers only, where the addon has CUDA: our own backend on
 *                                  the addon's kernels, worker/kernels/tfjs/cuda/; wasm is loaded
 *                                  beside it for the small trials trialBackend() sends to the CPU)
 *   1. @tensorflow/tfjs-node-gpu  (GPU workers only; the pool already pinned the GPU through
 *                                  CUDA_VISIBLE_DEVICES, so libtensorflow sees just that one)
 *   2. @tensorflow/tfjs-node      (libtensorflow on the CPU)
 *   3. @tensorflow/tfjs-backend-wasm (XNNPACK in WebAssembly; its .wasm files load from
 *                                  node_modules/@tensorflow/tfjs-backend-wasm/dist/ in Node)
 *   4. 'cpu'                      (plain JS, always there)
 *
 * The two native packages are optionalDependencies: where libtensorflow could not be fetched they
 * are absent, or present but fail to load. Every attempt is recorded with its reason, and a GPU
 * worker that ends up on a CPU backend says so (`gpuRequestedButCpu`), so the UI can show it.
 * The environment is injected so tests cover each case without the native packages.
 */
import * as tf from '@tensorflow/tfjs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { registerOnNativeAddon } from './cuda/native-device';
import { GPU_MIN_MACS_PER_ROW } from '../../../common/tuning/trial-size';

export type TfjsBackendName = 'gpuflow-cuda' | 'tensorflow' | 'wasm' | 'cpu';
export type CandidateName = 'gpuflow-cuda' | 'tfjs-node-gpu' | 'tfjs-node' | 'wasm' | 'cpu';

export interface BackendAttempt {
  name: CandidateName;
  ok: boolean;
  /** Why it failed or was skipped; 'loaded' when it worked. */
  reason: string;
}

export interface BackendSelection {
  /** The tf backend now active. */
  backend: TfjsBackendName;
  /** The candidate that provided it. */
  candidate: CandidateName;
  tried: BackendAttempt[];
  /** A GPU worker is training on a CPU backend. */
  gpuRequestedButCpu: boolean;
  /** With gpuflow-cuda: the CPU backend loaded beside it for small trials (trialBackend). */
  smallTrials?: 'wasm' | 'cpu';
}

/** What selection needs from the world; `defaultTfjsEnvironment` is the real one. */
export interface TfjsEnvironment {
  /** Dynamic import of a package (throws when absent or when its native part fails to load). */
  importModule(specifier: string): Promise<unknown>;
  /** tf.setBackend(name) then tf.ready(); false or a throw means it did not activate. */
  setBackend(name: TfjsBackendName): Promise<boolean>;
  /** For tensorflow: whether libtensorflow placed ops on a GPU (undefined when unknown). */
  usingGpu(): boolean | undefined;
  /** Registers gpuflow-cuda on the addon: null when done, else why it cannot run here. */
  registerGpuflowCuda(): string | null;
}

function reasonOf(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split('\n')[0].slice(0, 300);
}

const require = createRequire(import.meta.url);

/** Directory holding tfjs-backend-wasm's .wasm files, with the trailing slash setWasmPaths wants. */
export function wasmDistDir(): string {
  return path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + path.sep;
}

interface WasmModule {
  setWasmPaths(prefix: string): void;
}

function isWasmModule(m: unknown): m is WasmModule {
  return typeof m === 'object' && m !== null && typeof (m as { setWasmPaths?: unknown }).setWasmPaths === 'function';
}

export const defaultTfjsEnvironment: TfjsEnvironment = {
  async importModule(specifier) {
    const m: unknown = await import(specifier);
    if (specifier === '@tensorflow/tfjs-backend-wasm') {
      if (!isWasmModule(m)) throw new Error('@tensorflow/tfjs-backend-wasm has no setWasmPaths');
      m.setWasmPaths(wasmDistDir());
    }
    return m;
  },
  async setBackend(name) {
    const ok = await tf.setBackend(name);
    await tf.ready();
    return ok && tf.getBackend() === name;
  },
  registerGpuflowCuda: registerOnNativeAddon,
  usingGpu() {
    const b = tf.backend() as unknown as { binding?: { isUsingGpuDevice?: () => boolean } };
    return typeof b.binding?.isUsingGpuDevice === 'function' ? b.binding.isUsingGpuDevice() : undefined;
  },
};

const CANDIDATES: { name: CandidateName; module?: string; backend: TfjsBackendName }[] = [
  { name: 'gpuflow-cuda', backend: 'gpuflow-cuda' },
  { name: 'tfjs-node-gpu', module: '@tensorflow/tfjs-node-gpu', backend: 'tensorflow' },
  { name: 'tfjs-node', module: '@tensorflow/tfjs-node', backend: 'tensorflow' },
  { name: 'wasm', module: '@tensorflow/tfjs-backend-wasm', backend: 'wasm' },
  { name: 'cpu', backend: 'cpu' },
];

export async function selectTfjsBackend(opts: { gpu: boolean; env?: TfjsEnvironment }): Promise<BackendSelection> {
  const env = opts.env ?? defaultTfjsEnvironment;
  const tried: BackendAttempt[] = [];
  for (const c of CANDIDATES) {
    if ((c.name === 'tfjs-node-gpu' || c.name === 'gpuflow-cuda') && !opts.gpu) {
      tried.push({ name: c.name, ok: false, reason: 'skipped: not a GPU worker' });
      continue;
    }
    try {
      if (c.name === 'gpuflow-cuda') {
        const why = env.registerGpuflowCuda();
        if (why) throw new Error(why);
      }
      if (c.module) await env.importModule(c.module);
      if (!(await env.setBackend(c.backend))) throw new Error(`tf.setBackend('${c.backend}') did not activate it`);
    } catch (e) {
      tried.push({ name: c.name, ok: false, reason: reasonOf(e) });
      continue;
    }
    let onGpu = false;
    if (c.name === 'tfjs-node-gpu') {
      const used = env.usingGpu();
      onGpu = used !== false;
      tried.push({ name: c.name, ok: true, reason: used === false ? 'loaded, but libtensorflow found no GPU: ops run on the CPU' : 'loaded' });
    } else {
      tried.push({ name: c.name, ok: true, reason: 'loaded' });
    }
    if (c.name === 'gpuflow-cuda') {
      // wasm beside it for small trials; activating gpuflow-cuda again after its import.
      let smallTrials: 'wasm' | 'cpu' = 'cpu';
      try {
        await env.importModule('@tensorflow/tfjs-backend-wasm');
        smallTrials = 'wasm';
      } catch {
        /* plain JS for small trials */
      }
      return { backend: c.backend, candidate: c.name, tried, gpuRequestedButCpu: false, smallTrials };
    }
    return { backend: c.backend, candidate: c.name, tried, gpuRequestedButCpu: opts.gpu && !onGpu };
  }
  // 'cpu' ships with @tensorflow/tfjs; reaching here means tfjs itself is broken.
  throw new Error(`no TensorFlow.js backend could start: ${tried.map((t) => `${t.name}: ${t.reason}`).join('; ')}`);
}

// The size rule's constant and measure live in common/ (main reads them to plan GPU workers).
export { GPU_MIN_MACS_PER_ROW, macsPerRow } from '../../../common/tuning/trial-size';

/** The backend one trial trains on, and the rule's words for the run record. */
export function trialBackend(sel: BackendSelection, macs: number): { backend: TfjsBackendName; rule?: string } {
  if (sel.backend !== 'gpuflow-cuda' || !sel.smallTrials) return { backend: sel.backend };
  if (macs >= GPU_MIN_MACS_PER_ROW) return { backend: 'gpuflow-cuda', rule: `${macs} multiply-adds per row >= ${GPU_MIN_MACS_PER_ROW}: GPU` };
  return { backend: sel.smallTrials, rule: `${macs} multiply-adds per row < ${GPU_MIN_MACS_PER_ROW}: ${sel.smallTrials} (faster than the GPU for small models)` };
}

