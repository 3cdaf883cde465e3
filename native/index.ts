/**
 * Loads the native addon (native/build/gpuflow.node, built by native/build.mjs) and types its
 * exports. Nothing here throws when the addon is missing: `loadNative()` says why, and
 * `nativeInfo()` is what `gpuflow devices` prints. GPUFLOW_NATIVE_DIR points at another build
 * folder (tests build a CPU-only variant into a temp dir); GPUFLOW_NO_NATIVE=1 disables it;
 * GPUFLOW_BENCH_FAKE_CUDA=1 answers its CUDA calls with the CPU kernels (native/fake-cuda.ts,
 * for bench/engine/overhead.ts only).
 *
 * Where native/build is: beside this file in the source tree; from a bundle (out/main/app.js,
 * out/main/chunks/*.js, bench bundles) the nearest ancestor folder holding native/build, and in
 * a packaged app the same path under app.asar.unpacked (electron-builder unpacks every .node).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NativeAddon, RawInfo } from './addon-types';
import { fakeCudaAddon } from './fake-cuda';

// The addon's exports are typed in addon-types.ts (beside the loader, not in it, so fake-cuda.ts
// can implement them without importing the loader that imports it).
export type { FloatArray, NativeAddon, RawInfo } from './addon-types';

export interface NativeInfo {
  available: boolean;
  backends: string[];
  cuda: boolean;
  reason?: string;
  cudaReason?: string;
  /** The GPU the cuda backend sees, when it does. */
  device?: string;
  /** The system BLAS native-cpu's matmul uses ('' when its own kernel). */
  blas?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
let cached: { addon: NativeAddon } | { unavailable: string } | undefined;

/** A path inside app.asar, moved to the folder electron-builder unpacks it to. */
const unpacked = (p: string) => p.replace(/([\\/])app\.asar(?=[\\/]|$)/, '$1app.asar.unpacked');

/** The native/build folder for code living in `from` (this file's folder, or a bundle's). */
export function findBuildDir(from: string): string {
  if (basename(from) === 'native' && existsSync(join(from, 'build.mjs'))) return join(from, 'build');
  for (let d = from; ; d = dirname(d)) {
    for (const c of [unpacked(join(d, 'native', 'build')), join(d, 'native', 'build')]) {
      if (existsSync(join(c, 'gpuflow.node')) || existsSync(join(c, 'info.json'))) return c;
    }
    if (dirname(d) === d) return join(from, 'build'); // nothing found: loadNative names this path
  }
}

function buildDir(): string {
  return process.env.GPUFLOW_NATIVE_DIR ?? findBuildDir(here);
}

function isRawInfo(x: unknown): x is RawInfo {
  if (typeof x !== 'object' || x === null) return false;
  const o = x as Record<string, unknown>;
  return typeof o.cuda === 'boolean' && typeof o.blas === 'string' && typeof o.hardwareThreads === 'number';
}

/** The addon, or why it cannot be used. Loaded once per process. */
export function loadNative(): { addon: NativeAddon } | { unavailable: string } {
  if (cached) return cached;
  if (process.env.GPUFLOW_NO_NATIVE === '1') return (cached = { unavailable: 'disabled by GPUFLOW_NO_NATIVE=1' });
  const dir = buildDir();
  const file = join(dir, 'gpuflow.node');
  if (!existsSync(file)) {
    let reason = `no addon at ${file}; run \`node native/build.mjs\``;
    try {
      const info: unknown = JSON.parse(readFileSync(join(dir, 'info.json'), 'utf8'));
      if (typeof info === 'object' && info !== null && typeof (info as { reason?: unknown }).reason === 'string')
        reason = `addon not built: ${(info as { reason: string }).reason}`;
    } catch { /* no info.json: keep the generic reason */ }
    return (cached = { unavailable: reason });
  }
  try {
    const addon = createRequire(import.meta.url)(file) as NativeAddon;
    // Not info(): in a GPU worker that creates the CUDA context and loads cuBLAS / cuSOLVER, which
    // worker/cuda-warmup.ts does off the JS thread; nativeInfo() checks info()'s shape.
    if (typeof addon.info !== 'function' || typeof addon.runProgram !== 'function') return (cached = { unavailable: `${file} is not a gpuflow addon of this version` });
    // Bench only: CUDA entry points answered by the CPU kernels (native/fake-cuda.ts).
    if (process.env.GPUFLOW_BENCH_FAKE_CUDA === '1') return (cached = { addon: fakeCudaAddon(addon) });
    return (cached = { addon });
  } catch (e) {
    return (cached = { unavailable: `could not load ${file}: ${e instanceof Error ? e.message : String(e)}` });
  }
}

/** Which native backends this process can use, and why not where not. */
export function nativeInfo(): NativeInfo {
  const n = loadNative();
  if ('unavailable' in n) return { available: false, backends: [], cuda: false, reason: n.unavailable, cudaReason: n.unavailable };
  const raw = n.addon.info();
  if (!isRawInfo(raw)) return { available: false, backends: [], cuda: false, reason: 'the native addon is not a gpuflow addon of this version', cudaReason: 'the native addon is not a gpuflow addon of this version' };
  const info: NativeInfo = { available: true, backends: raw.cuda ? ['native-cpu', 'cuda'] : ['native-cpu'], cuda: raw.cuda, blas: raw.blas };
  if (raw.cudaReason) info.cudaReason = raw.cudaReason;
  if (raw.device) info.device = raw.device;
  return info;
}
