/**
 * The timeseries source fused with the groupby chunk step (docs/dataframes.md, "Source fusion"):
 * the compiler (main/engine/compile/df-fuse.ts) turns `timeseries partition -> groupby-chunk` into
 * one task, so the partition is never an Arrow table that crosses processes, and only the columns
 * the groupby reads are generated (dask-expr's projection pushdown and blockwise fusion).
 *
 * - js (CPU workers): the projected partition, then groupbyChunk: the same partial as unfused.
 * - cuda (GPU workers): native/src/cuda/df_timeseries.cu generates the rows on the device and
 *   adds them to key slots; only the slots come back. Keys name and id, values id, x and y; the
 *   rest (a timestamp key or value, nunique) is { unsupported } and runs on js.
 */
import type { Table, Vector } from 'apache-arrow';
import type { ValueType } from '../../../common/expr/ast';
import type { DfAddon } from '../../../native/df';
import { seedKey } from '../../../common/philox';
import { int32Vector, stringVector } from './build';
import { tableOf } from './gather';
import { GPU_AGGS, stateFromSlots, type Unsupported } from './gpu';
import { groupbyChunk, neededStats, stateToTable, validateSpec, type GroupbySpec } from './groupby';
import { TIMESERIES_NAMES, timeseriesPartition } from './timeseries';
import { groupbyColumns } from '../../../common/df/timeseries-columns';

export { groupbyColumns };

/** A timeseries partition, as the 'timeseries' task names it. */
export interface TimeseriesSource {
  seed: number;
  partition: number;
  rows: number;
  startMs?: number;
  freqMs?: number;
}

/** The chunk step on the host: generate the columns the groupby reads, then group them. */
export function timeseriesGroupbyChunk(src: TimeseriesSource, spec: GroupbySpec): Table {
  const part = timeseriesPartition(src.seed, src.partition, src.rows, { startMs: src.startMs, freqMs: src.freqMs, columns: groupbyColumns(spec) });
  return groupbyChunk(part, spec);
}

// native/src/df_api.h's TsColumn, kTsIdLo and kTsIdCard.
const COLUMN = { name: 0, id: 1, x: 2, y: 3 } as const;
export const TS_ID_LO = 700;
export const TS_ID_CARD = 600;
const VALUE_TYPE: Record<string, ValueType> = { id: 'int', x: 'float', y: 'float' };

/** The chunk step on the device: the same partial table as timeseriesGroupbyChunk. */
export async function timeseriesGroupbyNative(run: DfAddon['cudaDfTimeseriesGroupby'], src: TimeseriesSource, spec: GroupbySpec): Promise<Table | Unsupported> {
  validateSpec(spec, 'groupby');
  const other = spec.aggs.find((a) => !GPU_AGGS.has(a.agg));
  if (other) return { unsupported: `groupby ${other.agg} runs on the js kernel` };
  if (spec.by.length > 2) return { unsupported: 'more than two keys' };
  const cards: number[] = [];
  for (const k of spec.by) {
    if (k !== 'name' && k !== 'id') return { unsupported: `key '${k}' is not generated on the device (keys there: name, id)` };
    cards.push(k === 'name' ? TIMESERIES_NAMES.length : TS_ID_CARD);
  }
  const stats = neededStats(spec);
  const values = [...stats.keys()];
  for (const v of values) if (!(v in VALUE_TYPE)) return { unsupported: `column '${v}' is not aggregated on the device (values there: id, x, y)` };
  const strides: number[] = [];
  let slots = 1;
  for (let j = spec.by.length - 1; j >= 0; j--) {
    strides[j] = slots;
    slots *= cards[j];
  }
  const wants = [...stats.values()];
  const flags = (wants.some((s) => s.has('m2')) ? 1 : 0) | (wants.some((s) => s.has('min') || s.has('max')) ? 2 : 0);
  const [k0, k1] = seedKey(src.seed);
  const desc: number[] = [k0, k1, src.partition * src.rows, src.rows, slots, spec.by.length, values.length, flags];
  spec.by.forEach((k, j) => desc.push(COLUMN[k as 'name' | 'id'], strides[j], cards[j]));
  for (const v of values) desc.push(COLUMN[v as 'id' | 'x' | 'y']);
  const out = new Float64Array(slots * (2 + 5 * values.length));
  await run(Float64Array.from(desc), out);
  // The key values follow from the slot: name's code, or id - TS_ID_LO.
  const keysOf = (live: number[]): Table => {
    const cols = spec.by.map((k, j) => {
      const codes = Int32Array.from(live, (s) => Math.floor(s / strides[j]) % cards[j]);
      const vector: Vector = k === 'name' ? stringVector(codes, TIMESERIES_NAMES) : int32Vector(codes.map((c) => c + TS_ID_LO));
      return { name: k, vector };
    });
    return tableOf(cols, live.length);
  };
  return stateToTable(stateFromSlots(keysOf, spec, out, slots, values.map((name) => ({ name, type: VALUE_TYPE[name] })), stats));
}
