/** What a run reports for each output node, and its statistics. Shared with the renderer. */
import type { DType } from './arrays';

export interface ArraySummary {
  min: number;
  max: number;
  mean: number;
  /** Counts over `bins` equal bins between min and max. */
  histogram: { bins: number; counts: number[] };
  /** The top-left corner (up to 8 x 8), row-major. */
  corner: { shape: number[]; data: number[] };
}

/**
 * `digestDigits`: significant digits the result digest keeps of this value's numbers, when fewer
 * than the default (common/digest.ts): set for values computed from float32 data.
 */
export type ResultValue =
  /** `exact`: an int64 value's decimal digits, where `value` (a JSON number) rounds it (beyond 2**53). */
  | { kind: 'scalar'; dtype: DType | string; value: number; exact?: string; digestDigits?: number }
  | { kind: 'array'; dtype: DType | string; shape: number[]; data?: number[]; summary?: ArraySummary; file?: string; digestDigits?: number }
  | { kind: 'json'; value: unknown }
  /** A dataframe: total rows, its columns, and Arrow IPC stream bytes (base64) of at most the
   * first TABLE_PREVIEW_ROWS rows; `truncated` when rows were left out. Never JSON rows. */
  | { kind: 'table'; rows: number; columns: { name: string; type: string }[]; ipc: string; truncated: boolean };

export interface WorkerStat {
  id: string;
  kind: string;
  label: string;
  virtual: boolean;
  tasks: number;
  busyMs: number;
  backends: Record<string, number>;
}

export interface RunStats {
  tasks: number;
  durationMs: number;
  workers: WorkerStat[];
  /**
   * Dependencies fetched from peers. `ipc` / `host`: those moved device to device by CUDA IPC and
   * those through host memory; `hostReasons`: why host transfers did not go by IPC, with counts
   * (local engine only; a Dask run reports the totals).
   */
  transfers: { count: number; bytes: number; ipc?: { count: number; bytes: number }; host?: { count: number; bytes: number }; hostReasons?: Record<string, number> };
  /** Tasks that ran on device-resident data, and their host <-> device traffic (common/messages.ts DeviceTraffic). */
  device?: { tasks: number; reusedInputs: number; reusedBytes: number; uploadedBytes: number; keptBytes: number };
  restarts: number;
  /** Tasks not computed because the result cache held them or what they fed (and the nodes all of whose tasks were). */
  reused?: { tasks: number; nodes: string[] };
  /** Workers the run went without, and why: left out after failing to start, or their device gone. */
  leftOut?: { worker: string; reason: string }[];
  /** GPU worker processes on each GPU and why (main/engine/gpu-sharing.ts); absent without GPU workers. */
  gpuWorkersPerDevice?: { perDevice: number; why: string };
}

export interface RunResult {
  runId: string;
  status: 'finished' | 'failed' | 'cancelled';
  error?: string;
  /** Node the error belongs to, when there is one. */
  errorNode?: string;
  results: Record<string, ResultValue>;
  stats: RunStats;
}
