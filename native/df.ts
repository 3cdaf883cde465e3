/**
 * The dataframe kernels' exports of the addon (native/src/df_addon.cc), typed here rather than in
 * index.ts so the df side can grow without touching the array side's types. `dfAddon()` says why
 * they are absent (no addon, or an addon built before they existed).
 */
import { loadNative } from './index';

/** Column buffers handed to the df kernels: float64 values, int32 codes, uint8 validity / tables. */
export type DfBuffer = Float64Array | Int32Array | Uint8Array;

export interface DfAddon {
  /** Filter predicate bytecode (worker/kernels/df/expr-code.ts) on the host: kept row indices into idx, their count into result[0]. */
  dfFilter(code: Float64Array, bufs: DfBuffer[], rows: number, idx: Int32Array, result: Float64Array): Promise<void>;
  /** The same on the device. */
  cudaDfFilter(code: Float64Array, bufs: DfBuffer[], rows: number, idx: Int32Array, result: Float64Array): Promise<void>;
  /** Groupby accumulators per key slot (layout in native/src/df_api.h). */
  cudaDfGroupby(desc: Float64Array, bufs: DfBuffer[], out: Float64Array): Promise<void>;
  /** Join row pairs; result[0] = their number (written only when it fits li / ri). */
  cudaDfJoin(desc: Float64Array, bufs: DfBuffer[], li: Int32Array, ri: Int32Array, result: Float64Array): Promise<void>;
  /** The timeseries source generated and grouped on the device (layout in native/src/df_api.h). */
  cudaDfTimeseriesGroupby(desc: Float64Array, out: Float64Array): Promise<void>;
}

const NAMES = ['dfFilter', 'cudaDfFilter', 'cudaDfGroupby', 'cudaDfJoin', 'cudaDfTimeseriesGroupby'] as const;

export function dfAddon(): { addon: DfAddon } | { unavailable: string } {
  const n = loadNative();
  if ('unavailable' in n) return n;
  const raw = n.addon as unknown as Record<string, unknown>;
  const missing = NAMES.filter((k) => typeof raw[k] !== 'function');
  if (missing.length > 0) return { unavailable: `the addon lacks ${missing.join(', ')} (built before the dataframe kernels; run \`node native/build.mjs --force\`)` };
  return { addon: raw as unknown as DfAddon };
}

/** The df kernels on the device, or why not (no addon, no CUDA in it, no device). */
export function dfCuda(): { addon: DfAddon } | { unavailable: string } {
  const d = dfAddon();
  if ('unavailable' in d) return d;
  const info = loadNative();
  if ('addon' in info) {
    const raw = info.addon.cudaStatus();
    if (!raw.cuda) return { unavailable: raw.cudaReason ?? 'CUDA is not available' };
  }
  return d;
}
