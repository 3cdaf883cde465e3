/**
 * Hash join of two partitions (inner, left, right, outer, leftsemi, leftanti), the per-partition
 * step of both join plans:
 *
 * - hash-partitioned: both sides are first split with hashPartition on their keys into k parts;
 *   part p of the left joins part p of the right.
 * - broadcast: a small right side is sent whole to every worker and joined with each left
 *   partition (broadcastJoin). Only inner and left joins are correct this way: an outer join
 *   would repeat the right side's unmatched rows once per left partition.
 *
 * Output rows: each left row with its matches in right order (a left row without a match, in
 * left and outer joins, gets nulls on the right), then, for outer joins, the right rows that
 * matched nothing. Key columns named alike on both sides appear once (filled from the right for
 * right-only rows); other same-named columns get suffixes (_x, _y by default), as pandas.merge.
 * Null (and NaN) keys match each other, as pandas.merge does; `nulls: 'never'` is SQL's join,
 * where a null key matches nothing.
 *
 * leftsemi / leftanti (dask's merge how='leftsemi', pandas' `left[left.k.isin(right.k)]` and its
 * negation): the left rows with at least one match (semi) or none (anti), each once, in left
 * order, with the left columns only. Each left row's answer depends only on whether its key is on
 * the right, so both plans are correct for them, as for inner and left joins.
 */
import { makeVector, type Table, type Vector } from 'apache-arrow';
import { column } from './columns';
import { concatData, single, tableOf, takeData, takeTable } from './gather';
import { factorize } from './keys';

import { JOIN_HOWS, type JoinHow } from '../../../common/df/op-params';
export { JOIN_HOWS, type JoinHow };
/** The joins that keep the left columns only. */
export const isSemiJoin = (how: JoinHow): how is 'leftsemi' | 'leftanti' => how === 'leftsemi' || how === 'leftanti';

export interface JoinSpec {
  how: JoinHow;
  /** Key columns named alike on both sides. */
  on?: string[];
  leftOn?: string[];
  rightOn?: string[];
  /** Suffixes for non-key columns present on both sides (default ['_x', '_y']). */
  suffixes?: [string, string];
  /** 'match' (default, pandas): a null key equals a null key; 'never' (SQL): null keys match nothing. */
  nulls?: 'match' | 'never';
}

function keysOf(spec: JoinSpec): { lk: string[]; rk: string[] } {
  const lk = spec.on ?? spec.leftOn;
  const rk = spec.on ?? spec.rightOn;
  if (!lk || !rk || lk.length === 0) throw new Error("join: give 'on' (names on both sides) or 'leftOn' and 'rightOn'");
  if (lk.length !== rk.length) throw new Error(`join: leftOn has ${lk.length} columns but rightOn has ${rk.length}`);
  if (!JOIN_HOWS.includes(spec.how)) throw new Error(`join: how is '${String(spec.how)}'; expected ${JOIN_HOWS.join(', ')}`);
  return { lk, rk };
}

/** Row pairs of the join: left row or -1, right row or -1. */
function matchRows(left: Table, right: Table, lk: string[], rk: string[], how: 'inner' | 'left' | 'outer', nulls: JoinSpec['nulls']): { li: Int32Array; ri: Int32Array } {
  const { ids: [lid, rid], groups } = factorize([left, right], [lk, rk], 'join', nulls !== 'never');
  // Right rows bucketed by group id (counting sort: CSR offsets + rows).
  const start = new Int32Array(groups + 1);
  for (let i = 0; i < rid.length; i++) if (rid[i] >= 0) start[rid[i] + 1]++;
  for (let g = 0; g < groups; g++) start[g + 1] += start[g];
  const rows = new Int32Array(start[groups]);
  const fill = start.slice(0, groups);
  for (let i = 0; i < rid.length; i++) if (rid[i] >= 0) rows[fill[rid[i]]++] = i;
  let total = 0;
  for (let i = 0; i < lid.length; i++) {
    const g = lid[i];
    const m = g >= 0 ? start[g + 1] - start[g] : 0;
    total += m > 0 ? m : how === 'inner' ? 0 : 1;
  }
  let unmatched: Int32Array | null = null;
  if (how === 'outer') {
    const hit = new Uint8Array(groups);
    for (let i = 0; i < lid.length; i++) if (lid[i] >= 0) hit[lid[i]] = 1;
    const list: number[] = [];
    for (let i = 0; i < rid.length; i++) if (rid[i] < 0 || !hit[rid[i]]) list.push(i);
    unmatched = Int32Array.from(list);
    total += unmatched.length;
  }
  const li = new Int32Array(total);
  const ri = new Int32Array(total);
  let o = 0;
  for (let i = 0; i < lid.length; i++) {
    const g = lid[i];
    const a = g >= 0 ? start[g] : 0;
    const b = g >= 0 ? start[g + 1] : 0;
    if (b > a) {
      for (let k = a; k < b; k++) {
        li[o] = i;
        ri[o++] = rows[k];
      }
    } else if (how !== 'inner') {
      li[o] = i;
      ri[o++] = -1;
    }
  }
  if (unmatched) {
    for (const r of unmatched) {
      li[o] = -1;
      ri[o++] = r;
    }
  }
  return { li, ri };
}

/** The left rows whose key is (semi) or is not (anti) on the right, in left order. */
function semiRows(left: Table, right: Table, lk: string[], rk: string[], anti: boolean, nulls: JoinSpec['nulls']): Int32Array {
  const { ids: [lid, rid], groups } = factorize([left, right], [lk, rk], 'join', nulls !== 'never');
  const onRight = new Uint8Array(groups);
  for (let i = 0; i < rid.length; i++) if (rid[i] >= 0) onRight[rid[i]] = 1;
  const rows: number[] = [];
  for (let i = 0; i < lid.length; i++) if ((lid[i] >= 0 && onRight[lid[i]] === 1) !== anti) rows.push(i);
  return Int32Array.from(rows);
}

/** Hash join of two tables. A right join is the left join of the sides swapped (pandas' row order: right rows in order, each with its matches in left order). */
export function hashJoin(left: Table, right: Table, spec: JoinSpec): Table {
  const { lk, rk } = joinKeys(left, right, spec);
  if (isSemiJoin(spec.how)) return takeTable(left, semiRows(left, right, lk, rk, spec.how === 'leftanti', spec.nulls));
  if (spec.how === 'right') {
    const { li: r, ri: l } = matchRows(right, left, rk, lk, 'left', spec.nulls);
    return joinedTable(left, right, spec, l, r);
  }
  const { li, ri } = matchRows(left, right, lk, rk, spec.how, spec.nulls);
  return joinedTable(left, right, spec, li, ri);
}

/** The key names of a join spec, checked against both tables. */
export function joinKeys(left: Table, right: Table, spec: JoinSpec): { lk: string[]; rk: string[] } {
  const { lk, rk } = keysOf(spec);
  for (const k of lk) column(left, k, 'join (left)');
  for (const k of rk) column(right, k, 'join (right)');
  return { lk, rk };
}

/**
 * The output table of a join from its row pairs (li[k], ri[k]; -1 = no row), in matchRows'
 * order: the cuda join (gpu.ts) makes the pairs on the device and builds its table here.
 */
export function joinedTable(left: Table, right: Table, spec: JoinSpec, li: Int32Array, ri: Int32Array): Table {
  const { lk, rk } = keysOf(spec);
  const [sx, sy] = spec.suffixes ?? ['_x', '_y'];
  const leftNames = left.schema.fields.map((f) => f.name);
  const rightNames = right.schema.fields.map((f) => f.name);
  // Keys with one name on both sides are merged into one column.
  const shared = new Set(lk.filter((k, i) => rk[i] === k));
  const out: { name: string; vector: Vector }[] = [];
  const rightOnly = li.some((x) => x < 0);
  for (const name of leftNames) {
    const lv = single(left.getChild(name) as Vector);
    let data = takeData(lv, li);
    if (shared.has(name) && rightOnly) {
      // Rows with no left row (right and outer joins) take a shared key from the right.
      const rv = single(right.getChild(name) as Vector);
      if (String(rv.type) !== String(lv.type)) throw new Error(`join: key '${name}' is ${String(lv.type)} on the left but ${String(rv.type)} on the right`);
      const both = concatData([lv, rv]);
      data = takeData(both, Int32Array.from(li, (l, k) => (l >= 0 ? l : ri[k] >= 0 ? lv.length + ri[k] : -1)));
    }
    const clash = !shared.has(name) && rightNames.includes(name);
    out.push({ name: clash ? name + sx : name, vector: makeVector(data) });
  }
  for (const name of rightNames) {
    if (shared.has(name)) continue;
    const clash = leftNames.includes(name);
    out.push({ name: clash ? name + sy : name, vector: makeVector(takeData(single(right.getChild(name) as Vector), ri)) });
  }
  return tableOf(out, li.length);
}

/**
 * Join of one partition of a large left side with a whole small right side (broadcast plan):
 * inner, left, leftsemi or leftanti (see the module comment).
 */
export function broadcastJoin(partition: Table, small: Table, spec: JoinSpec): Table {
  if (spec.how === 'outer' || spec.how === 'right') throw new Error('join: a right or outer join cannot broadcast the right side (its unmatched rows would repeat per partition); use the hash-partitioned plan');
  return hashJoin(partition, small, spec);
}
