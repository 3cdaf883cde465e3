/**
 * The dataframe ops GPU workers run on the device (native/src/cuda/df_*.cu): filter, the chunk
 * step of groupby, and the hash join. This file marshals Arrow columns into the buffers the addon
 * takes and turns the kernels' answers back into the same tables the js kernels make, so every
 * later step (combine, aggregate, gather) is shared:
 *
 * - filter: predicate bytecode (expr-code.ts) -> kept row indices -> takeTable;
 * - groupby chunk: keys as dictionary codes or integer offsets, combined into dense slots
 *   (mixed radix); per slot rows, first row, count / sum / min / max / m2 -> groupby.ts's partial;
 * - join: keys as codes in one space for both sides (the right dictionary mapped onto the left's
 *   on the device) -> row pairs in join.ts's order -> joinedTable.
 *
 * Each returns { unsupported: why } for what the kernels do not cover (nunique, string values,
 * float or wide-ranged keys, too many key combinations, ...); the caller then runs the js kernel
 * and records why. Inputs are never modified; nulls are passed as validity bytes.
 */
import type { Table } from 'apache-arrow';
import { compileFilter } from '../../../common/expr/check';
import type { ValueType } from '../../../common/expr/ast';
import type { DfAddon, DfBuffer } from '../../../native/df';
import { boolView, column, exprSchemaOf, floatSumsExact, numView, strView, valueTypeOf } from './columns';
import { compileFilterCode } from './expr-code';
import { takeTable } from './gather';
import { NUMERIC_ONLY, exactFromFloats, newAcc, neededStats, stateToTable, tableOfKeys, validateSpec, type ColAcc, type GroupbySpec, type Stat, type State } from './groupby';
import { isSemiJoin, joinedTable, joinKeys, type JoinSpec } from './join';

export type Unsupported = { unsupported: string };
export type FilterCall = DfAddon['cudaDfFilter'];

/** Dense slots at most (Float64 accumulators: 7 per value column per slot). */
export const MAX_SLOTS = 1 << 22;

/** Rows where `expr` holds, evaluated by `run` (the device, or the host interpreter). */
export async function filterNative(run: FilterCall, table: Table, expr: string): Promise<Table | Unsupported> {
  const checked = compileFilter(expr, exprSchemaOf(table));
  const c = compileFilterCode(checked, table);
  if ('unsupported' in c) return c;
  const n = table.numRows;
  const idx = new Int32Array(n);
  const result = new Float64Array(1);
  await run(c.code, c.bufs, n, idx, result);
  return takeTable(table, idx.subarray(0, result[0]));
}

// ---- keys ---------------------------------------------------------------------------------------

interface KeyCodes {
  codes: Int32Array;
  valid: Uint8Array | null;
  card: number;
}

/** Integer-valued numbers as offsets from the smallest (NaN and nulls invalid), or why not. */
function intOffsets(sides: { values: Float64Array; valid: Uint8Array | null }[], name: string): KeyCodes[] | Unsupported {
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of sides) {
    const x = s.values;
    for (let i = 0; i < x.length; i++) {
      if (s.valid && !s.valid[i]) continue;
      const v = x[i];
      if (v !== v) continue;
      if (v !== Math.floor(v)) return { unsupported: `key '${name}' has non-integer values` };
      // The offsets come from float64 views, which round int64 keys beyond 2^53: the host keys those exactly.
      if (Math.abs(v) >= 2 ** 53) return { unsupported: `key '${name}' has values beyond 2^53` };
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  const card = hi >= lo ? hi - lo + 1 : 1;
  if (card > 2 ** 31 - 1) return { unsupported: `key '${name}' spans ${card} integers` };
  if (!(lo <= hi)) lo = 0;
  return sides.map((s) => {
    const x = s.values;
    const n = x.length;
    const codes = new Int32Array(n);
    let valid = s.valid;
    for (let i = 0; i < n; i++) {
      const v = x[i];
      if (v !== v) {
        if (!valid || valid === s.valid) valid = s.valid ? Uint8Array.from(s.valid) : new Uint8Array(n).fill(1);
        valid[i] = 0;
      } else codes[i] = v - lo;
    }
    return { codes, valid, card };
  });
}

// ---- groupby ------------------------------------------------------------------------------------

export const GPU_AGGS = new Set(['sum', 'mean', 'count', 'min', 'max', 'std', 'var', 'size']);

function groupKey(table: Table, name: string): KeyCodes | Unsupported {
  const col = column(table, name, 'groupby');
  const kind = valueTypeOf(col.type);
  if (kind === 'string') {
    const v = strView(col, name);
    return { codes: v.codes, valid: v.valid, card: Math.max(1, v.dict.length) };
  }
  if (kind === 'bool') {
    const v = boolView(col, name);
    return { codes: Int32Array.from(v.values), valid: v.valid, card: 2 };
  }
  if (!kind) return { unsupported: `key '${name}' has type ${String(col.type)}` };
  const r = intOffsets([numView(col, name)], name);
  return 'unsupported' in r ? r : r[0];
}

/** The chunk step of groupby on the device: the same partial table as groupbyChunk. */
export async function groupbyChunkNative(run: DfAddon['cudaDfGroupby'], table: Table, spec: GroupbySpec): Promise<Table | Unsupported> {
  validateSpec(spec, 'groupby');
  const other = spec.aggs.find((a) => !GPU_AGGS.has(a.agg));
  if (other) return { unsupported: `groupby ${other.agg} runs on the js kernel` };
  if (spec.dropna === false) return { unsupported: 'groupby dropna=False (null keys as a group) runs on the js kernel' };
  const n = table.numRows;
  const bufs: DfBuffer[] = [];
  const add = (b: DfBuffer | null) => (b ? bufs.push(b) - 1 : -1);
  const keys: KeyCodes[] = [];
  for (const name of spec.by) {
    const k = groupKey(table, name);
    if ('unsupported' in k) return k;
    keys.push(k);
  }
  const strides: number[] = [];
  let slots = 1;
  for (let j = keys.length - 1; j >= 0; j--) {
    strides[j] = slots;
    slots *= keys[j].card;
    if (slots > MAX_SLOTS) return { unsupported: `more than ${MAX_SLOTS} key combinations (${spec.by.join(', ')})` };
  }
  const stats = neededStats(spec);
  const valueCols: { name: string; type: ValueType }[] = [];
  for (const name of stats.keys()) {
    const col = column(table, name, 'groupby');
    const type = valueTypeOf(col.type);
    if (!type || type === 'string') return { unsupported: `column '${name}' is ${type ?? String(col.type)}: aggregates of it run on the js kernel` };
    // The js kernel refuses these with its own message.
    if (type === 'timestamp' && spec.aggs.some((a) => a.column === name && NUMERIC_ONLY.has(a.agg))) return { unsupported: `a numeric aggregate of timestamp column '${name}'` };
    // The device adds float64s: exact for integers only while their sums stay below 2^53.
    const ints = type === 'int' ? numView(col, name) : null;
    if (ints && !floatSumsExact(ints.values, ints.valid)) return { unsupported: `int column '${name}' has sums beyond 2^53: exact int64 sums run on the js kernel` };
    valueCols.push({ name, type });
  }
  const wants = [...stats.values()];
  const flags = (wants.some((s) => s.has('m2')) ? 1 : 0) | (wants.some((s) => s.has('min') || s.has('max')) ? 2 : 0);
  const desc: number[] = [n, slots, keys.length, valueCols.length, flags];
  keys.forEach((k, j) => desc.push(add(k.codes), add(k.valid), strides[j], k.card));
  for (const c of valueCols) {
    const col = column(table, c.name, 'groupby');
    const v = c.type === 'bool' ? (() => { const b = boolView(col, c.name); return { values: Float64Array.from(b.values), valid: b.valid }; })() : numView(col, c.name);
    desc.push(add(v.values), add(v.valid));
  }
  const out = new Float64Array(slots * (2 + 5 * valueCols.length));
  await run(Float64Array.from(desc), bufs, out);
  // Each group's key values: those of its first row.
  const keysOf = (live: number[]) => takeTable(tableOfKeys(table, spec.by), Int32Array.from(live, (s) => out[slots + s]));
  return stateToTable(stateFromSlots(keysOf, spec, out, slots, valueCols, stats));
}

/**
 * Slots with rows -> groupby.ts's State (groups in slot order; partial order does not matter).
 * `out` has df_api.h's layout; keysOf gives the key columns of the live slots, in their order.
 */
export function stateFromSlots(keysOf: (live: number[]) => Table, spec: GroupbySpec, out: Float64Array, slots: number, valueCols: { name: string; type: ValueType }[], stats: ReturnType<typeof neededStats>): State {
  const live: number[] = [];
  for (let s = 0; s < slots; s++) if (out[s] > 0) live.push(s);
  const g = live.length;
  const keys = keysOf(live);
  const size = spec.aggs.some((a) => a.agg === 'size') ? Float64Array.from(live, (s) => out[s]) : null;
  const cols = new Map<string, ColAcc>();
  valueCols.forEach((c, v) => {
    const acc = newAcc(c.type === 'bool' ? 'int' : c.type, stats.get(c.name) as Set<Stat>, g);
    const at = (stat: number, s: number) => out[(2 + 5 * v + stat) * slots + s];
    live.forEach((s, k) => {
      acc.count[k] = at(0, s);
      acc.sum[k] = at(1, s);
      acc.min[k] = at(2, s);
      acc.max[k] = at(3, s);
      acc.mean[k] = acc.count[k] > 0 ? acc.sum[k] / acc.count[k] : 0;
      acc.m2[k] = at(4, s);
    });
    exactFromFloats(acc);
    cols.set(c.name, acc);
  });
  return { keys, groups: g, size, cols };
}

// ---- join ---------------------------------------------------------------------------------------

const HOW = { inner: 0, left: 1, outer: 2 } as const;

/** Whether key column `name` holds a null (or a NaN, which joins as a null). */
function hasMissing(t: Table, name: string): boolean {
  const c = column(t, name, 'join');
  if (c.nullCount > 0) return true;
  const kind = valueTypeOf(c.type);
  if (kind === 'string' || kind === 'bool') return false;
  const x = numView(c, name).values;
  for (let i = 0; i < x.length; i++) if (x[i] !== x[i]) return true;
  return false;
}

/** Hash join on the device: the same table as hashJoin. */
export async function hashJoinNative(run: DfAddon['cudaDfJoin'], left: Table, right: Table, spec: JoinSpec): Promise<Table | Unsupported> {
  const { lk, rk } = joinKeys(left, right, spec);
  if (spec.how === 'right') return { unsupported: 'the device join has no right join' };
  if (isSemiJoin(spec.how)) return { unsupported: `the device join has no ${spec.how} join` };
  // The device kernel never matches a null key; pandas' default (nulls match) runs on the host.
  if (spec.nulls !== 'never' && (lk.some((k) => hasMissing(left, k)) || rk.some((k) => hasMissing(right, k)))) return { unsupported: 'null keys match (pandas), which the device join does not do' };
  const nl = left.numRows;
  const nr = right.numRows;
  const bufs: DfBuffer[] = [];
  const add = (b: DfBuffer | null) => (b ? bufs.push(b) - 1 : -1);
  const desc: number[] = [nl, nr, HOW[spec.how], lk.length];
  const per: number[][] = [];
  let space = 1;
  for (let j = lk.length - 1; j >= 0; j--) {
    const lc = column(left, lk[j], 'join (left)');
    const rc = column(right, rk[j], 'join (right)');
    const lt = valueTypeOf(lc.type);
    const rt = valueTypeOf(rc.type);
    let entry: number[];
    let card: number;
    if (lt === 'string' && rt === 'string') {
      const l = strView(lc, lk[j]);
      const r = strView(rc, rk[j]);
      const index = new Map(l.dict.map((s, i) => [s, i]));
      const map = Int32Array.from(r.dict, (s) => index.get(s) ?? -1);
      card = Math.max(1, l.dict.length);
      entry = [add(l.codes), add(l.valid), add(r.codes), add(r.valid), add(map)];
    } else if (lt === 'bool' && rt === 'bool') {
      const l = boolView(lc, lk[j]);
      const r = boolView(rc, rk[j]);
      card = 2;
      entry = [add(Int32Array.from(l.values)), add(l.valid), add(Int32Array.from(r.values)), add(r.valid), -1];
    } else if (lt && rt && lt !== 'string' && rt !== 'string' && lt !== 'bool' && rt !== 'bool') {
      const sides = intOffsets([numView(lc, lk[j]), numView(rc, rk[j])], lk[j]);
      if ('unsupported' in sides) return sides;
      card = sides[0].card;
      entry = [add(sides[0].codes), add(sides[0].valid), add(sides[1].codes), add(sides[1].valid), -1];
    } else return { unsupported: `join key '${lk[j]}' is ${lt ?? String(lc.type)} on the left and ${rt ?? String(rc.type)} on the right` };
    per[j] = [...entry, space, card];
    space *= card;
    // Strides travel as doubles: keep the key space where they are exact.
    if (space > 2 ** 53) return { unsupported: 'the key columns have too many combinations for one 53-bit key' };
  }
  for (const e of per) desc.push(...e);
  const d = Float64Array.from(desc);
  const result = new Float64Array(1);
  // Room for a join without duplicate right keys; a larger result is told and retried once.
  let cap = nl + nr;
  let li = new Int32Array(cap);
  let ri = new Int32Array(cap);
  await run(d, bufs, li, ri, result);
  if (result[0] > cap) {
    cap = result[0];
    li = new Int32Array(cap);
    ri = new Int32Array(cap);
    await run(d, bufs, li, ri, result);
  }
  const total = result[0];
  return joinedTable(left, right, spec, li.subarray(0, total), ri.subarray(0, total));
}
