/**
 * Row-order scans over a frame split into partitions: cumsum / cumprod / cummax / cummin,
 * ffill / bfill, shift and diff, as pandas gives them on the whole frame; and reset_index's row
 * numbers (each partition's carry is its row count).
 *
 * Each partition's answer depends on the partitions before it (after it, for bfill and a negative
 * shift), but only through something small, its carry, as dask's cumulative ops and map_overlap:
 * - cum ops: the partition's aggregate of each column ('scan-carry': one row, null where the
 *   partition has no present value); partition i folds the carries of 0..i-1 in order, so
 *   cumsum([1, 2] | [3]) starts partition 1 at 3;
 * - ffill / bfill: the partition's last (first) present value of each column, one row of the
 *   column's own type;
 * - shift(p) / diff(p): the last p rows of each earlier partition (the first -p rows of each later
 *   one), as rolling's tails, so a partition shorter than p passes rows on.
 *
 * Integer columns scan exactly in int64 (bigints, wrapping on overflow as numpy's cumsum / cumprod),
 * so values beyond 2^53 keep every digit; their carries are Int64.
 *
 * As pandas (skipna): a missing value (null, float NaN) stays missing in cum ops and does not stop
 * the running value; ffill / bfill fill it from the nearest present value before (after) it.
 * diff is x - x.shift(p) as float; shift keeps the column's type, null where no row is shifted in.
 */
import { makeVector, type Table, type Vector } from 'apache-arrow';
import { floatVector, int64Vector } from './build';
import { column, exactIntView, numView, valueTypeOf } from './columns';
import { concatData, concatTables, single, tableOf, takeData } from './gather';
import { missingMask } from './missing';

import { CUM_OPS, FILL_OPS } from '../../../common/df/op-params';
export { CUM_OPS, FILL_OPS };
export type CumOp = (typeof CUM_OPS)[number];
export type FillOp = (typeof FILL_OPS)[number];
export type ScanOp = CumOp | FillOp;

export interface ScanSpec {
  op: ScanOp;
  columns: string[];
  /** '' or absent: the columns are replaced; else the results are new columns `<column><suffix>`. */
  suffix?: string;
}

export interface ShiftSpec {
  /** Rows to shift down (negative: up), as pandas' periods. */
  periods: number;
  columns: string[];
  suffix?: string;
  /** x - x.shift(periods) instead of the shifted values. */
  diff?: boolean;
}

const STEP: Record<CumOp, (a: number, x: number) => number> = {
  cumsum: (a, x) => a + x,
  cumprod: (a, x) => a * x,
  cummax: (a, x) => (x > a ? x : a),
  cummin: (a, x) => (x < a ? x : a),
};

const BIG_STEP: Record<CumOp, (a: bigint, x: bigint) => bigint> = {
  cumsum: (a, x) => BigInt.asIntN(64, a + x),
  cumprod: (a, x) => BigInt.asIntN(64, a * x),
  cummax: (a, x) => (x > a ? x : a),
  cummin: (a, x) => (x < a ? x : a),
};

/** The running int64 value over `t`'s column from `acc` (null: none yet): each row's value (null where missing) and the last. */
function cumInts(t: Table, name: string, op: CumOp, acc: bigint | null): { out: BigInt64Array; valid: Uint8Array; acc: bigint | null } {
  const v = column(t, name, op);
  const x = exactIntView(v, name).values;
  const miss = missingMask(v, name);
  const step = BIG_STEP[op];
  const out = new BigInt64Array(x.length);
  const valid = new Uint8Array(x.length);
  for (let i = 0; i < x.length; i++) {
    if (miss[i]) continue;
    acc = acc === null ? x[i] : step(acc, x[i]);
    out[i] = acc;
    valid[i] = 1;
  }
  return { out, valid, acc };
}

const isCum = (op: ScanOp): op is CumOp => (CUM_OPS as readonly string[]).includes(op);

/** `own` with the new columns in place of (or after) the old ones. */
function withColumns(own: Table, made: Map<string, Vector>, suffix: string | undefined): Table {
  const out: { name: string; vector: Vector }[] = own.schema.fields.map((f) => ({ name: f.name, vector: (suffix ? undefined : made.get(f.name)) ?? (own.getChild(f.name) as Vector) }));
  if (suffix) for (const [name, vector] of made) out.push({ name: name + suffix, vector });
  return tableOf(out, own.numRows);
}

/** Numbers of a column with its missing rows marked (NaN included). */
function present(t: Table, name: string, where: string): { x: Float64Array; miss: Uint8Array; int: boolean } {
  const v = column(t, name, where);
  const type = valueTypeOf(v.type);
  if (type !== 'int' && type !== 'float') throw new Error(`${where}: column '${name}' is ${type ?? String(v.type)}, not a number`);
  return { x: numView(v, name).values, miss: missingMask(v, name), int: type === 'int' };
}

/** The partition's carry: one row per spec (see the module comment). */
export function scanCarry(t: Table, spec: ScanSpec): Table {
  const where = `${spec.op} (carry)`;
  if (isCum(spec.op)) {
    const op = spec.op;
    const step = STEP[op];
    return tableOf(spec.columns.map((name) => {
      const { x, miss, int } = present(t, name, where);
      if (int) {
        const { acc } = cumInts(t, name, op, null);
        return { name, vector: int64Vector(BigInt64Array.of(acc ?? 0n), Uint8Array.of(acc === null ? 0 : 1)) };
      }
      let acc = NaN;
      for (let i = 0; i < x.length; i++) if (!miss[i]) acc = acc !== acc ? x[i] : step(acc, x[i]);
      return { name, vector: floatVector(Float64Array.of(acc), Uint8Array.of(acc === acc ? 1 : 0)) };
    }), 1);
  }
  const forward = spec.op === 'ffill';
  return tableOf(spec.columns.map((name) => {
    const v = column(t, name, where);
    const miss = missingMask(v, name);
    let at = -1;
    if (forward) for (let i = miss.length - 1; i >= 0 && at < 0; i--) at = miss[i] ? -1 : i;
    else for (let i = 0; i < miss.length && at < 0; i++) at = miss[i] ? -1 : i;
    return { name, vector: makeVector(takeData(single(v), Int32Array.of(at))) };
  }), 1);
}

/**
 * The scan of partition `own`, given the carries of the partitions before it in order (after it,
 * nearest first, for bfill).
 */
export function scan(own: Table, carries: Table[], spec: ScanSpec): Table {
  const made = new Map<string, Vector>();
  const ctx = carries.filter((c) => c.numRows > 0);
  if (isCum(spec.op)) {
    const step = STEP[spec.op];
    for (const name of spec.columns) {
      const { x, miss, int } = present(own, name, spec.op);
      if (int) {
        let start: bigint | null = null;
        for (const c of ctx) start = cumInts(c, name, spec.op, start).acc;
        const { out, valid } = cumInts(own, name, spec.op, start);
        made.set(name, int64Vector(out, valid));
        continue;
      }
      let acc = NaN;
      for (const c of ctx) {
        const { x: cx, miss: cm } = present(c, name, spec.op);
        if (!cm[0]) acc = acc !== acc ? cx[0] : step(acc, cx[0]);
      }
      const out = new Float64Array(x.length);
      const valid = new Uint8Array(x.length);
      for (let i = 0; i < x.length; i++) {
        if (miss[i]) continue;
        acc = acc !== acc ? x[i] : step(acc, x[i]);
        out[i] = acc;
        valid[i] = 1;
      }
      made.set(name, floatVector(out, valid));
    }
    return withColumns(own, made, spec.suffix);
  }
  const forward = spec.op === 'ffill';
  for (const name of spec.columns) {
    const v = column(own, name, spec.op);
    const n = v.length;
    // Forward: [carries..., own], each row taking the last present row at or before it; backward: [own, carries...], the first at or after it.
    const parts = forward ? [...ctx.map((c) => single(column(c, name, spec.op))), single(v)] : [single(v), ...ctx.map((c) => single(column(c, name, spec.op)))];
    const all = concatData(parts);
    const miss = missingMask(makeVector(all), name);
    const lead = forward ? all.length - n : 0;
    const idx = new Int32Array(n);
    let last = -1;
    if (forward) {
      for (let k = 0; k < lead; k++) if (!miss[k]) last = k;
      for (let i = 0; i < n; i++) idx[i] = last = miss[lead + i] ? last : lead + i;
    } else {
      for (let k = all.length - 1; k >= n; k--) if (!miss[k]) last = k;
      for (let i = n - 1; i >= 0; i--) idx[i] = last = miss[i] ? last : i;
    }
    made.set(name, makeVector(takeData(all, idx)));
  }
  return withColumns(own, made, spec.suffix);
}

/**
 * shift / diff of partition `own`, given the tails of the partitions before it in order (for
 * periods > 0) or the heads of the partitions after it in order (periods < 0).
 */
export function shift(own: Table, context: Table[], spec: ShiftSpec): Table {
  const p = spec.periods;
  if (!Number.isInteger(p)) throw new Error(`shift: periods must be a whole number, got ${p}`);
  const n = own.numRows;
  const ctx = context.filter((c) => c.numRows > 0);
  const made = new Map<string, Vector>();
  const near = ctx.length ? concatTables(ctx) : null;
  for (const name of spec.columns) {
    const v = single(column(own, name, spec.diff ? 'diff' : 'shift'));
    const extra = near ? single(column(near, name, 'shift')) : null;
    // Rows as one chunk: [before..., own] for p > 0, [own, after...] for p < 0; row i of own is at `base + i`.
    const all = extra ? concatData(p > 0 ? [extra, v] : [v, extra]) : v;
    const base = extra && p > 0 ? extra.length : 0;
    const idx = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const k = base + i - p;
      idx[i] = k >= 0 && k < all.length ? k : -1;
    }
    const shifted = takeData(all, idx);
    if (!spec.diff) {
      made.set(name, makeVector(shifted));
      continue;
    }
    const cur = present(own, name, 'diff');
    const prev = numView(makeVector(shifted), name);
    const prevMiss = missingMask(makeVector(shifted), name);
    const out = new Float64Array(n);
    const valid = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      if (cur.miss[i] || prevMiss[i]) continue;
      out[i] = cur.x[i] - prev.values[i];
      valid[i] = 1;
    }
    made.set(name, floatVector(out, valid));
  }
  return withColumns(own, made, spec.suffix);
}

/** reset_index's carry: the partition's row count, one Int64 row. */
export function rowCount(t: Table): Table {
  return tableOf([{ name: 'rows', vector: int64Vector(BigInt64Array.of(BigInt(t.numRows))) }], 1);
}

/**
 * reset_index of partition `own` given the row counts of the partitions before it: a first column
 * `name` with each row's position in the frame, pandas' RangeIndex written out.
 */
export function rowNumber(own: Table, counts: Table[], name: string): Table {
  if (own.getChild(name)) throw new Error(`reset_index: column '${name}' exists already`);
  let start = 0n;
  for (const c of counts) start += exactIntView(column(c, 'rows', 'reset_index'), 'rows').values[0];
  const at = BigInt64Array.from({ length: own.numRows }, (_, i) => start + BigInt(i));
  return tableOf([{ name, vector: int64Vector(at) }, ...own.schema.fields.map((f) => ({ name: f.name, vector: column(own, f.name, 'reset_index') }))], own.numRows);
}
