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
import { fakeCudaAddon } from './fake-cuda';

export type FloatArray = Float64Array | Float32Array;

/** The addon's exports (native/src/addon.cc). Every call validates its arguments with TypeError / RangeError. */
export interface NativeAddon {
  info(): RawInfo;
  /** Runs an encoded program (native/program-code.ts) on `threads` CPU threads into `out`. */
  runProgram(code: Float64Array, inputs: (FloatArray | Int32Array)[], out: FloatArray, threads: number): Promise<void>;
  matmul(a: FloatArray, b: FloatArray, c0: FloatArray | null, m: number, k: number, n: number, out: FloatArray, threads: number): Promise<void>;
  qr(a: FloatArray, m: number, n: number, q: FloatArray, r: FloatArray, threads: number): Promise<void>;
  svd(a: FloatArray, m: number, n: number, u: FloatArray, s: FloatArray, vt: FloatArray, threads: number): Promise<void>;
  cudaRunProgram(code: Float64Array, inputs: (FloatArray | Int32Array)[], out: FloatArray): Promise<void>;
  /** Diagnostics: ms per launch of a program's fused kernel (no inputs, reduction over all axes) into result[0]. */
  cudaBenchProgram(code: Float64Array, reps: number, result: Float64Array): Promise<void>;
  cudaMatmul(a: FloatArray, b: FloatArray, c0: FloatArray | null, m: number, k: number, n: number, out: FloatArray): Promise<void>;
  cudaQr(a: FloatArray, m: number, n: number, q: FloatArray, r: FloatArray): Promise<void>;
  cudaSvd(a: FloatArray, m: number, n: number, u: FloatArray, s: FloatArray, vt: FloatArray): Promise<void>;
  /**
   * The CUDA context, made off the JS thread (a GPU worker starts it at once: worker/cuda-warmup.ts);
   * resolves when it is made or found unavailable, at once in a CPU-only build.
   */
  cudaWarmContext(): Promise<void>;
  /**
   * The warm-up's second phase: one cuBLAS and one cuSOLVER handle, made off the JS thread; from
   * the call on, a linear algebra call needing a handle waits for these, and info() leaves the
   * libraries alone until they are made.
   */
  cudaWarmLibraries(): Promise<void>;
  /** info()'s CUDA availability alone, without info()'s CPU BLAS / LAPACK lookup (the cuda backend's start asks it). */
  cudaStatus(): { cuda: boolean; cudaReason?: string };
  /** Device-resident buffers (native/src/resident_napi.cc; worker/resident/ uses them): ids the addon's pool owns. */
  cudaResidentUpload(src: FloatArray | Int32Array): Promise<number>;
  cudaResidentDownload(id: number, dst: FloatArray | Int32Array): Promise<void>;
  cudaResidentFree(id: number): boolean;
  /** Inputs are host arrays or ids; resolves with the output's id, or -1 when the partial went into `out`. */
  cudaResidentRunProgram(code: Float64Array, inputs: (FloatArray | Int32Array | number)[], out: Float64Array | null): Promise<number>;
  cudaResidentMatmul(a: number, b: number, c0: number | null, m: number, k: number, n: number): Promise<number>;
  cudaResidentStats(): { blocks: number; bytes: number; pinnedBytes: number };
  /** Row blocks (float64, n columns, m rows in all) stacked, then [q, r] or [u, s, vt] as new blocks (native/src/linalg_resident_napi.cc). */
  cudaResidentFactor(ids: number[], m: number, n: number, svd: boolean): Promise<number[]>;
  /** Rows [start, start + count) of a row-major block with `cols` columns, copied into a new block. */
  cudaResidentRows(id: number, start: number, count: number, cols: number): Promise<number>;
  /** The same block under a second id; its memory goes with the last id freed. */
  cudaResidentShare(id: number): number;
  /** CUDA IPC transfers of resident buffers (native/src/ipc_napi.cc; worker/resident/ipc.ts uses them). */
  cudaIpcExport(id: number): Promise<{ exportId: number; handle: Uint8Array }>;
  cudaIpcRelease(exportId: number, reuse: boolean): Promise<boolean>;
  cudaIpcImport(handle: Uint8Array, bytes: number, dtype: 'float64' | 'float32' | 'int32'): Promise<number>;
  cudaIpcStats(): { exports: number; exportBytes: number; cachedBytes: number };
}

export interface RawInfo {
  cuda: boolean;
  cudaReason?: string;
  device?: string;
  cublasReason?: string;
  cusolverReason?: string;
  blas: string;
  hardwareThreads: number;
  /** Program leaves may walk backwards (negative coefficients); absent in older builds. */
  negativeStrides?: boolean;
}

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
