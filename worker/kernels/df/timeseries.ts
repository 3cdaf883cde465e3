/**
 * The synthetic timeseries of dask.datasets.timeseries: columns timestamp, id (int, Poisson-like
 * around 1000), name (one of 26 first names), x and y (uniform in (-1, 1]).
 *
 * Every value is addressed by its global row index r, not by partition: row r uses elements
 * 4r .. 4r+3 of the Philox uniform stream of `seed` (common/philox.ts, PhiloxStream
 * with dist 'uniform', a 0, b 1): element 4r gives name, 4r+1 x, 4r+2 id, 4r+3 y. So rows
 * 0..N of a seed are the same whatever the partitioning, worker or process. name and x share
 * one Philox block (2r) and id and y the other (2r+1), so a projection to name and x (the
 * groupby-mean workload) generates half the blocks; `columns` selects what is made. The loops
 * call philox4x32 per block rather than PhiloxStream.at per value, for speed; a test checks
 * the values equal PhiloxStream's.
 *
 * id is round(1000 + sqrt(1000) * z) with z the normal quantile of its uniform (the normal
 * approximation of Poisson(1000), one uniform per value so rows stay independently addressable).
 */
import { Table, type Vector } from 'apache-arrow';
import { philox4x32, seedKey } from '../../../common/philox';
import { floatVector, int32Vector, stringVector } from './build';
import { tableOf } from './gather';
import { makeData, makeVector, TimestampMillisecond } from 'apache-arrow';
import { TIMESERIES_COLUMNS, TIMESERIES_NAMES, type TimeseriesColumn } from '../../../common/df/timeseries-columns';

export { TIMESERIES_COLUMNS, TIMESERIES_NAMES, type TimeseriesColumn };

export interface TimeseriesSpec {
  seed: number;
  /** Global index of the first row. */
  rowStart: number;
  rowCount: number;
  /** Timestamp of row 0, ms since the epoch (default 2000-01-01T00:00:00Z, as dask). */
  startMs?: number;
  /** Time between rows in ms (default 1000, dask's freq='1s'). */
  freqMs?: number;
  /** Columns to generate, in the standard order (default all five). */
  columns?: readonly TimeseriesColumn[];
}

export const TIMESERIES_START_MS = Date.UTC(2000, 0, 1);

/** Acklam's inverse normal CDF (relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

const SQRT_1000 = Math.sqrt(1000);
const ALMOST_ONE = 1 - 2 ** -53;
/**
 * Philox4x32-10 of counter (io[0], io[1], 0, 0) with key (io[2], io[3]), written to io[4..7],
 * through the reference philox4x32. The block counter stays below 2^30 for the first 2^29 rows,
 * so the arguments are small integers that V8 passes unboxed.
 */
function philoxBlock(io: Uint32Array, out: Uint32Array): void {
  philox4x32(io[0], io[1], 0, 0, io[2], io[3], out);
}

/** float64 uniform in (0, 1] from two words (uniform64 of philox.ts), read from io[j], io[j+1]. */
function uniformAt(io: Uint32Array, j: number): number {
  return ((io[j] >>> 5) * 67108864 + (io[j + 1] >>> 6) + 1) * 1.1102230246251565e-16;
}

// The two loops live in their own small functions so V8 optimizes them as a whole (not by
// on-stack replacement of a big function), which keeps every intermediate an unboxed number.
function fillA(rowStart: number, n: number, io: Uint32Array, name: Int32Array, x: Float64Array, nNames: number): void {
  const out = new Uint32Array(4);
  const wantName = name.length > 0;
  const wantX = x.length > 0;
  for (let i = 0; i < n; i++) {
    const b = 2 * (rowStart + i);
    io[0] = b % 4294967296;
    io[1] = Math.floor(b / 4294967296);
    philoxBlock(io, out);
    if (wantName) {
      const k = Math.floor(uniformAt(out, 0) * nNames);
      name[i] = k < nNames ? k : nNames - 1;
    }
    if (wantX) x[i] = -1 + 2 * uniformAt(out, 2);
  }
}

function fillB(rowStart: number, n: number, io: Uint32Array, id: Int32Array, y: Float64Array): void {
  const out = new Uint32Array(4);
  const wantId = id.length > 0;
  const wantY = y.length > 0;
  for (let i = 0; i < n; i++) {
    const b = 2 * (rowStart + i) + 1;
    io[0] = b % 4294967296;
    io[1] = Math.floor(b / 4294967296);
    philoxBlock(io, out);
    if (wantId) id[i] = Math.round(1000 + SQRT_1000 * normalQuantile(Math.min(uniformAt(out, 0), ALMOST_ONE)));
    if (wantY) y[i] = -1 + 2 * uniformAt(out, 2);
  }
}

/** Rows [rowStart, rowStart + rowCount) of the timeseries of `seed`. */
export function timeseries(spec: TimeseriesSpec): Table {
  const { seed, rowStart, rowCount } = spec;
  if (!Number.isSafeInteger(rowStart) || rowStart < 0) throw new Error(`timeseries: rowStart must be a non-negative integer, got ${rowStart}`);
  if (!Number.isSafeInteger(rowCount) || rowCount < 0) throw new Error(`timeseries: rowCount must be a non-negative integer, got ${rowCount}`);
  if (rowStart + rowCount > 2 ** 50) throw new Error('timeseries: rows beyond 2^50 are not addressable');
  const startMs = spec.startMs ?? TIMESERIES_START_MS;
  const freqMs = spec.freqMs ?? 1000;
  const want = new Set<string>(spec.columns ?? TIMESERIES_COLUMNS);
  for (const c of want) {
    if (!(TIMESERIES_COLUMNS as readonly string[]).includes(c)) throw new Error(`timeseries: unknown column '${c}'; columns are ${TIMESERIES_COLUMNS.join(', ')}`);
  }
  const [k0, k1] = seedKey(seed);
  const n = rowCount;
  const wantA = want.has('name') || want.has('x');
  const wantB = want.has('id') || want.has('y');
  const id = new Int32Array(want.has('id') ? n : 0);
  const name = new Int32Array(want.has('name') ? n : 0);
  const x = new Float64Array(want.has('x') ? n : 0);
  const y = new Float64Array(want.has('y') ? n : 0);
  const nNames = TIMESERIES_NAMES.length;
  if (wantA) {
    // Block 2r: elements 4r (name), 4r+1 (x).
    fillA(rowStart, n, Uint32Array.of(0, 0, k0, k1, 0, 0, 0, 0), name, x, nNames);
  }
  if (wantB) {
    // Block 2r+1: elements 4r+2 (id), 4r+3 (y).
    fillB(rowStart, n, Uint32Array.of(0, 0, k0, k1, 0, 0, 0, 0), id, y);
  }
  const cols: { name: string; vector: Vector }[] = [];
  if (want.has('timestamp')) {
    // Timestamps (< 2^53 ms) written as two little-endian 32-bit words: no BigInt per row.
    const ts = new BigInt64Array(n);
    const words = new Uint32Array(ts.buffer);
    for (let i = 0; i < n; i++) {
      const t = startMs + (rowStart + i) * freqMs;
      words[2 * i] = t % 4294967296 >>> 0;
      words[2 * i + 1] = Math.floor(t / 4294967296);
    }
    cols.push({ name: 'timestamp', vector: makeVector(makeData({ type: new TimestampMillisecond(), length: n, nullCount: 0, data: ts })) });
  }
  if (want.has('id')) cols.push({ name: 'id', vector: int32Vector(id) });
  if (want.has('name')) cols.push({ name: 'name', vector: stringVector(name, TIMESERIES_NAMES) });
  if (want.has('x')) cols.push({ name: 'x', vector: floatVector(x) });
  if (want.has('y')) cols.push({ name: 'y', vector: floatVector(y) });
  return tableOf(cols, n);
}

/** Partition `index` of `rowsPerPartition` rows each. */
export function timeseriesPartition(seed: number, index: number, rowsPerPartition: number, opts: Pick<TimeseriesSpec, 'startMs' | 'freqMs' | 'columns'> = {}): Table {
  return timeseries({ seed, rowStart: index * rowsPerPartition, rowCount: rowsPerPartition, ...opts });
}
