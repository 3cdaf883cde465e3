/**
 * The TypeScript side of the N-API boundary: what native/build/gpuflow.node exports
 * (native/src/addon.cc registers them; the dataframe exports are typed in df.ts). native/index.ts
 * loads the addon as a NativeAddon; fake-cuda.ts implements its CUDA calls for the bench.
 */

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
   * libraries alone until they are made. `gemmDtypes` (bit 0 float64, bit 1 float32): a first
   * 2048² gemm of each once the handles are made (cuBLAS's kernels loaded before the first matmul).
   */
  cudaWarmLibraries(gemmDtypes?: number): Promise<void>;
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
  /**
   * The tfjs backend's kernels (native/src/tf_napi.cc; worker/kernels/tfjs/cuda/): synchronous,
   * each queues its work on the JS thread's stream; tfRead waits for it. Buffers hold 4-byte
   * elements (dtype 0 float32, 1 int32) and are freed with cudaResidentFree. tfRun's op codes and
   * argument records are native/tf-ops.ts's.
   */
  tfAlloc(elems: number, dtype: number): number;
  tfWrite(id: number, src: Float32Array | Int32Array): void;
  tfRead(id: number, dst: Float32Array | Int32Array): void;
  tfRun(op: number, args: Float64Array): void;
  tfSync(): void;
  /**
   * Elements start + r * stride + c (r < rows, c < cols) of the float64 stream of docs/random.md
   * (normal(a, b) or uniform(a, b)) into out[r * outStride + c], bit-identical to PhiloxStream
   * (native/src/philox_fill.h), on `threads` threads; synchronous. Absent in builds before it
   * (native/philox-fill.ts then fills in JS).
   */
  philoxFill?(seed: number, normal: boolean, a: number, b: number, start: number, rows: number, cols: number, stride: number, out: FloatArray, outStride: number, threads: number, rowMap?: Int32Array): void;
  /**
   * True where philoxFill / philoxFillAsync take `rowMap` (block row r into out row rowMap[r];
   * each entry checked to be a row of out); older builds ignore the argument.
   */
  philoxFillRowMap?: boolean;
  /**
   * philoxFill on a libuv thread: the arguments are checked (and bad ones thrown) before it
   * returns, the fill settles the promise; `out` must not be detached meanwhile. Absent in builds
   * before it (native/philox-fill.ts then fills synchronously).
   */
  philoxFillAsync?(seed: number, normal: boolean, a: number, b: number, start: number, rows: number, cols: number, stride: number, out: FloatArray, outStride: number, threads: number, rowMap?: Int32Array): Promise<void>;
  /**
   * Each column's mean and sum of squared deviations of a rows x cols row-major x, in float64,
   * summed down the rows in order (native/src/column_moments.h: the JS fit's doubles, to the bit),
   * on `threads` threads. Absent in builds before it (native/column-moments.ts then sums in JS).
   */
  columnMoments?(x: Float32Array, rows: number, cols: number, mean: Float64Array, sq: Float64Array, threads: number): void;
  /** out = (x - mean) / sd per column, in double, rounded once to float32 (scaleX's bytes), rows split over `threads`. Absent in builds before it. */
  scaleColumns?(x: Float32Array, rows: number, cols: number, mean: Float64Array, sd: Float64Array, out: Float32Array, threads: number): void;
  /** The fill's log / sin / cos of each x (native/src/js_math.h: V8's fdlibm), for tests. */
  jsMath?(x: Float64Array, log: Float64Array, sin: Float64Array, cos: Float64Array): void;
  /** The fill's Box-Muller step on given uniforms: c = r cos t, s = r sin t (its vector path where the CPU has one), for tests. */
  jsBoxMuller?(u1: Float64Array, u2: Float64Array, c: Float64Array, s: Float64Array): void;
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
