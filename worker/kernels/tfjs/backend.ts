/**
 * Picks the TensorFlow.js backend a worker trains on, in order of speed:
 *
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

export type TfjsBackendName = 'tensorflow' | 'wasm' | 'cpu';
export type CandidateName = 'tfjs-node-gpu' | 'tfjs-node' | 'wasm' | 'cpu';

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
}

/** What selection needs from the world; `defaultTfjsEnvironment` is the real one. */
export interface TfjsEnvironment {
  /** Dynamic import of a package (throws when absent or when its native part fails to load). */
  importModule(specifier: string): Promise<unknown>;
  /** tf.setBackend(name) then tf.ready(); false or a throw means it did not activate. */
  setBackend(name: TfjsBackendName): Promise<boolean>;
  /** For tensorflow: whether libtensorflow placed ops on a GPU (undefined when unknown). */
  usingGpu(): boolean | undefined;
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
  usingGpu() {
    const b = tf.backend() as unknown as { binding?: { isUsingGpuDevice?: () => boolean } };
    return typeof b.binding?.isUsingGpuDevice === 'function' ? b.binding.isUsingGpuDevice() : undefined;
  },
};

const CANDIDATES: { name: CandidateName; module?: string; backend: TfjsBackendName }[] = [
  { name: 'tfjs-node-gpu', module: '@tensorflow/tfjs-node-gpu', backend: 'tensorflow' },
  { name: 'tfjs-node', module: '@tensorflow/tfjs-node', backend: 'tensorflow' },
  { name: 'wasm', module: '@tensorflow/tfjs-backend-wasm', backend: 'wasm' },
  { name: 'cpu', backend: 'cpu' },
];

export async function selectTfjsBackend(opts: { gpu: boolean; env?: TfjsEnvironment }): Promise<BackendSelection> {
  const env = opts.env ?? defaultTfjsEnvironment;
  const tried: BackendAttempt[] = [];
  for (const c of CANDIDATES) {
    if (c.name === 'tfjs-node-gpu' && !opts.gpu) {
      tried.push({ name: c.name, ok: false, reason: 'skipped: not a GPU worker' });
      continue;
    }
    try {
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
    return { backend: c.backend, candidate: c.name, tried, gpuRequestedButCpu: opts.gpu && !onGpu };
  }
  // 'cpu' ships with @tensorflow/tfjs; reaching here means tfjs itself is broken.
  throw new Error(`no TensorFlow.js backend could start: ${tried.map((t) => `${t.name}: ${t.reason}`).join('; ')}`);
}
