/**
 * Key columns -> dense integer group ids, the step under groupby, joins, drop_duplicates and
 * value_counts; and value hashes of keys, for hash partitioning.
 *
 * Factorizing runs jointly over several tables (a join's two sides), so equal key tuples get the
 * same id in every table. Each key column first becomes codes in [0, card) (strings by
 * dictionary, numbers through a Map, booleans as 0/1); codes of successive columns are then
 * combined pairwise (a * cardB + b) and compacted back to [0, groups), which keeps the products
 * below 2^53 whatever the number of keys.
 *
 * Numbers are keyed by value: an int64 beyond 2^53 by its exact bigint (2^53 and 2^53 + 1 are two
 * keys, as in pandas), an integral float beyond 2^53 by the bigint it equals, so an int key and a
 * float key of one value still meet.
 */
import type { Table } from 'apache-arrow';
import { boolView, column, int64View, numView, strView, valueTypeOf } from './columns';

export interface KeyCodes {
  /** Group id per row of each table; -1 where a key is null and nulls are dropped. */
  ids: Int32Array[];
  /** Number of distinct key tuples. */
  groups: number;
}

/** One key column across all tables as shared codes; null rows get code -1. */
function columnCodes(tables: Table[], names: string[], where: string): { codes: Int32Array[]; card: number } {
  const first = column(tables[0], names[0], where);
  const kind = valueTypeOf(first.type);
  if (!kind) throw new Error(`${where}: key column '${names[0]}' has type ${String(first.type)}, which cannot be a key`);
  if (kind === 'string') {
    const index = new Map<string, number>();
    const codes = tables.map((t, k) => {
      const v = strView(column(t, names[k], where), names[k]);
      const map = Int32Array.from(v.dict, (s) => {
        let c = index.get(s);
        if (c === undefined) {
          c = index.size;
          index.set(s, c);
        }
        return c;
      });
      // Identity map (the usual case of one table with a clean dictionary): the codes as they are.
      if (!v.valid && tables.length === 1 && map.every((c, i) => c === i)) return v.codes;
      return mapCodes(v.codes, map, v.valid);
    });
    return { codes, card: index.size };
  }
  if (kind === 'bool') {
    const codes = tables.map((t, k) => {
      const v = boolView(column(t, names[k], where), names[k]);
      return Int32Array.from(v.values, (x, i) => (v.valid && !v.valid[i] ? -1 : x));
    });
    return { codes, card: 2 };
  }
  const index = new Map<number | bigint, number>();
  const code = (key: number | bigint) => {
    let c = index.get(key);
    if (c === undefined) {
      c = index.size;
      index.set(key, c);
    }
    return c;
  };
  const codes = tables.map((t, k) => {
    const col = column(t, names[k], where);
    // Beyond 2^53 the float view rounds: those rows (only those, so the usual loop stays as fast) are keyed by their exact value.
    const exact = int64View(col)?.values;
    const v = numView(col, names[k]);
    const n = v.values.length;
    const out = new Int32Array(n);
    const x = v.values;
    for (let i = 0; i < n; i++) {
      const val = x[i];
      if ((v.valid && !v.valid[i]) || val !== val) {
        out[i] = -1;
        continue;
      }
      out[i] = code(val === 0 ? 0 : Math.abs(val) < 2 ** 53 ? val : exact ? exact[i] : Number.isFinite(val) ? BigInt(val) : val);
    }
    return out;
  });
  return { codes, card: index.size };
}

/**
 * Renumbers codes in [0, card) to [0, groups) keeping their order, dropping unused codes. When
 * every code is used the input is returned as is (the common case of a dictionary column).
 */
function compact(codes: Int32Array[], card: number): { codes: Int32Array[]; card: number } {
  let total = 0;
  for (const c of codes) total += c.length;
  if (card <= Math.max(4 * total, 1 << 16)) {
    const used = new Uint8Array(card);
    for (const c of codes) markUsed(c, used);
    const map = new Int32Array(card);
    let next = 0;
    for (let k = 0; k < card; k++) map[k] = used[k] ? next++ : -1;
    if (next === card) return { codes, card };
    return { codes: codes.map((c) => remap(c, map)), card: next };
  }
  let next = 0;
  const map = new Map<number, number>();
  const out = codes.map((c) => {
    const o = new Int32Array(c.length);
    for (let i = 0; i < c.length; i++) {
      const k = c[i];
      if (k < 0) { o[i] = -1; continue; }
      let g = map.get(k);
      if (g === undefined) { g = next++; map.set(k, g); }
      o[i] = g;
    }
    return o;
  });
  return { codes: out, card: next };
}

function markUsed(c: Int32Array, used: Uint8Array): void {
  const n = c.length;
  for (let i = 0; i < n; i++) {
    const k = c[i];
    if (k >= 0) used[k] = 1;
  }
}

function remap(c: Int32Array, map: Int32Array): Int32Array {
  const n = c.length;
  const o = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const k = c[i];
    o[i] = k < 0 ? -1 : map[k];
  }
  return o;
}

/** codes[i] -> map[codes[i]], or -1 where the row is null. */
function mapCodes(codes: Int32Array, map: Int32Array, valid: Uint8Array | null): Int32Array {
  const n = codes.length;
  const out = new Int32Array(n);
  if (valid) for (let i = 0; i < n; i++) out[i] = valid[i] ? map[codes[i]] : -1;
  else for (let i = 0; i < n; i++) out[i] = map[codes[i]];
  return out;
}

/**
 * Group ids of the key tuples `keys[k]` of each table `tables[k]` (one list of key names per
 * table, all of one length). With `nullsEqual` a null key is a value of its own (as
 * drop_duplicates needs); otherwise the row gets id -1 (groupby and joins skip it).
 */
export function factorize(tables: Table[], keys: string[][], where: string, nullsEqual = false): KeyCodes {
  const nk = keys[0].length;
  if (nk === 0) throw new Error(`${where}: needs at least one key column`);
  let acc: Int32Array[] | null = null;
  let accCard = 0;
  for (let j = 0; j < nk; j++) {
    let { codes, card } = columnCodes(tables, keys.map((k) => k[j]), where);
    if (nullsEqual) {
      codes = codes.map((c) => c.map((x) => (x < 0 ? card : x)));
      card += 1;
    }
    if (!acc) {
      acc = codes;
      accCard = card;
    } else {
      const prev: Int32Array[] = acc;
      const combined = prev.map((a, t) => {
        const b = codes[t];
        // Float64 holds the product exactly (both factors are below 2^31, compacted each step).
        const out = new Float64Array(a.length);
        for (let i = 0; i < a.length; i++) out[i] = a[i] < 0 || b[i] < 0 ? -1 : a[i] * card + b[i];
        return out;
      });
      const product = accCard * card;
      if (product < 2 ** 31) {
        const r = compact(combined.map((c) => Int32Array.from(c)), product);
        acc = r.codes;
        accCard = r.card;
      } else {
        const map = new Map<number, number>();
        acc = combined.map((c) => Int32Array.from(c, (x) => {
          if (x < 0) return -1;
          let g = map.get(x);
          if (g === undefined) { g = map.size; map.set(x, g); }
          return g;
        }));
        accCard = map.size;
      }
    }
  }
  const r = compact(acc as Int32Array[], accCard);
  return { ids: r.codes, groups: r.card };
}

/** First row of each group, indexed by group id (not in row order: ids follow key codes). */
export function firstRows(ids: Int32Array, groups: number): Int32Array {
  const first = new Int32Array(groups).fill(-1);
  for (let i = 0; i < ids.length; i++) {
    const g = ids[i];
    if (g >= 0 && first[g] < 0) first[g] = i;
  }
  return first;
}

// ---- hashing ------------------------------------------------------------------------------------

/** 32-bit mix (murmur3 finalizer). */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over UTF-16 code units, then mixed. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix(h);
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** Hash of a number's value (so int32 5, int64 5 and float 5.0 hash alike; -0 as 0). */
export function hashNumber(x: number): number {
  f64[0] = x === 0 ? 0 : x;
  return fmix(Math.imul(u32[0] ^ fmix(u32[1]), 0x9e3779b1) ^ u32[1]);
}

const NULL_HASH = 0x5bd1e995;

/**
 * Value hash per row of the key columns, the same for equal values in any partition, process or
 * column type (strings by content, numbers by value), so partition p of every input of a shuffle
 * receives the same keys.
 */
export function hashRows(table: Table, keys: string[], where: string): Uint32Array {
  const n = table.numRows;
  const h = new Uint32Array(n);
  for (const name of keys) {
    const col = column(table, name, where);
    const kind = valueTypeOf(col.type);
    let per: Uint32Array;
    if (kind === 'string') {
      const v = strView(col, name);
      const dh = Uint32Array.from(v.dict, hashString);
      per = new Uint32Array(n);
      for (let i = 0; i < n; i++) per[i] = v.valid && !v.valid[i] ? NULL_HASH : dh[v.codes[i]];
    } else if (kind === 'bool') {
      const v = boolView(col, name);
      per = Uint32Array.from(v.values, (x, i) => (v.valid && !v.valid[i] ? NULL_HASH : hashNumber(x)));
    } else if (kind) {
      const v = numView(col, name);
      per = new Uint32Array(n);
      const x = v.values;
      for (let i = 0; i < n; i++) per[i] = (v.valid && !v.valid[i]) || x[i] !== x[i] ? NULL_HASH : hashNumber(x[i]);
    } else throw new Error(`${where}: key column '${name}' has type ${String(col.type)}, which cannot be hashed`);
    for (let i = 0; i < n; i++) h[i] = fmix((Math.imul(h[i], 31) + per[i]) >>> 0);
  }
  return h;
}
