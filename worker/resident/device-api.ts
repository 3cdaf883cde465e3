/**
 * What the residency manager (store.ts) asks of a device: buffers named by ids, copies both ways,
 * and the kernels whose outputs stay on the device (fused programs, matmul, and the QR / SVD of
 * row blocks that TSQR and the one-task qr / svd use: linalg.ts). The addon
 * implements it (addonDeviceApi, native/src/resident_napi.cc); unit tests implement it in JS, so
 * the manager's logic is tested without a GPU.
 */
import type { ChunkProgram, ChunkValue, NDArray } from '../../common/arrays';
import { addonInput, resultOf } from '../../native/chunk-call';
import type { NativeAddon } from '../../native/index';
import { encodeProgram, outputLength } from '../../native/program-code';
import { librariesReady } from '../cuda-warmup';

/** Element types a device buffer holds (int64 inputs are converted on the host, never kept). */
export type DeviceDType = 'float64' | 'float32' | 'int32';

/** A chunk held in device memory: the JS side's handle on an addon buffer. */
export interface DeviceArrayRef {
  id: number;
  dtype: DeviceDType;
  shape: number[];
  bytes: number;
}

/** Several device arrays held as one value (a QR's or SVD's factors), each part its own buffer. */
export interface DeviceBundleRef {
  parts: Record<string, DeviceArrayRef>;
  bytes: number;
}

export type DeviceValue = DeviceArrayRef | DeviceBundleRef;

export interface DeviceApi {
  /** Copies a host array to a new device buffer; resolves with its id. */
  upload(a: NDArray & { dtype: DeviceDType }): Promise<number>;
  /** Copies a device buffer back (a new host array). */
  download(ref: DeviceArrayRef): Promise<NDArray>;
  /** Frees a buffer (its memory goes back to the pool once no call in flight uses it). */
  free(id: number): void;
  /**
   * Runs a fused program; inputs on the device are refs, others host values. Without a reduction
   * the output stays on the device (its id); with one, the partial comes back as a value.
   */
  runProgram(program: ChunkProgram, inputs: (ChunkValue | DeviceArrayRef)[]): Promise<{ id: number } | { value: ChunkValue }>;
  /** C = A B (+ C0), all on the device; resolves with C's id. */
  matmul(a: DeviceArrayRef, b: DeviceArrayRef, c0: DeviceArrayRef | null): Promise<number>;
  /**
   * Float64 row blocks (n columns, m rows in all) stacked, then QR -> [q, r] or SVD -> [u, s, vt]
   * ids, row-major, with the js conventions (diag(R) >= 0, the js sign rule). Absent: the device
   * has no resident linear algebra, and those tasks run on host values.
   */
  factor?(blocks: DeviceArrayRef[], m: number, n: number, svd: boolean): Promise<number[]>;
  /** Rows [start, start + count) of a 2-D buffer, copied into a new one. */
  rows?(a: DeviceArrayRef, start: number, count: number): Promise<number>;
  /** A second id for the same buffer (freed when both are). */
  share?(id: number): number;
}

export function isDeviceRef(v: ChunkValue | DeviceValue): v is DeviceArrayRef {
  return 'id' in v;
}

export function isDeviceBundle(v: ChunkValue | DeviceValue): v is DeviceBundleRef {
  return 'parts' in v;
}

/** The ids of a device value's buffers. */
export function deviceIds(v: DeviceValue): number[] {
  return isDeviceRef(v) ? [v.id] : Object.values(v.parts).map((p) => p.id);
}

function hostArrayFor(dtype: DeviceDType, n: number): Float64Array | Float32Array | Int32Array {
  return dtype === 'float64' ? new Float64Array(n) : dtype === 'float32' ? new Float32Array(n) : new Int32Array(n);
}

/** The addon's resident calls as a DeviceApi. */
export function addonDeviceApi(addon: NativeAddon): DeviceApi {
  return {
    upload: (a) => addon.cudaResidentUpload(a.data as Float64Array | Float32Array | Int32Array),
    async download(ref) {
      const n = ref.shape.reduce((x, y) => x * y, 1);
      const data = hostArrayFor(ref.dtype, n);
      await addon.cudaResidentDownload(ref.id, data);
      return { dtype: ref.dtype, shape: ref.shape, data };
    },
    free: (id) => void addon.cudaResidentFree(id),
    async runProgram(program, inputs) {
      const args = inputs.map((v) => (isDeviceRef(v) ? v.id : addonInput(v)));
      const shapes = inputs.map((v) => (isDeviceRef(v) ? v.shape : v.kind === 'array' ? v.array.shape : null));
      const code = encodeProgram(program, shapes);
      if (!program.reduce) return { id: await addon.cudaResidentRunProgram(code, args, null) };
      const out = new Float64Array(outputLength(program));
      await addon.cudaResidentRunProgram(code, args, out);
      return { value: resultOf(program, out) };
    },
    // cuBLAS / cuSOLVER calls wait for the warm-up's handles (worker/cuda-warmup.ts).
    matmul: (a, b, c0) => librariesReady().then(() => addon.cudaResidentMatmul(a.id, b.id, c0 ? c0.id : null, a.shape[0], a.shape[1], b.shape[1])),
    factor: (blocks, m, n, svd) => librariesReady().then(() => addon.cudaResidentFactor(blocks.map((b) => b.id), m, n, svd)),
    rows: (a, start, count) => addon.cudaResidentRows(a.id, start, count, a.shape[1]),
    share: (id) => addon.cudaResidentShare(id),
  };
}
