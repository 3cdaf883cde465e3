/**
 * Two stored runs' results side by side, decoded: per output node, numbers with their difference,
 * arrays with the largest absolute and relative error (over what the store keeps of an array: its
 * min / mean / max and its top-left corner), tables row-aligned with the changed cells marked,
 * JSON as text. Stored results cross the process boundary as JSON, so they are read with a zod
 * schema here, never cast. Also the workflow differences in words ("node gen: n changed from 10
 * to 20"). Pure; the Compare card renders what this returns.
 */
import * as z from 'zod';
import type { JsonDifference, JsonValue } from '../../common/store-types';
import { decodeTable, type DecodedTable } from './arrow-table';
import { paramText } from './format';

const summarySchema = z.object({
  min: z.number(),
  max: z.number(),
  mean: z.number(),
  corner: z.object({ shape: z.array(z.number()), data: z.array(z.number()) }),
});

const storedSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('scalar'), dtype: z.string(), value: z.number() }),
  z.object({ kind: z.literal('array'), dtype: z.string(), shape: z.array(z.number()), summary: summarySchema.nullable().optional() }),
  z.object({ kind: z.literal('table'), rows: z.number(), columns: z.array(z.object({ name: z.string(), type: z.string() })), ipc: z.string(), truncated: z.boolean() }),
  z.object({ kind: z.literal('json'), value: z.unknown() }),
]);
export type StoredResult = z.infer<typeof storedSchema>;

/** A run record's `results` as a map of stored results; entries that do not read are reported, not dropped silently. */
export function readStoredResults(v: JsonValue | null): { results: Record<string, StoredResult>; unreadable: string[] } {
  const results: Record<string, StoredResult> = {};
  const unreadable: string[] = [];
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { results, unreadable };
  for (const [k, x] of Object.entries(v)) {
    const r = storedSchema.safeParse(x);
    if (r.success) results[k] = r.data;
    else unreadable.push(k);
  }
  return { results, unreadable };
}

/** Largest absolute and relative difference between two equally long lists of numbers. */
export function maxErrors(a: readonly number[], b: readonly number[]): { abs: number; rel: number } {
  let abs = 0;
  let rel = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = Math.abs(a[i] - b[i]);
    if (Number.isNaN(a[i]) && Number.isNaN(b[i])) continue;
    abs = Math.max(abs, Number.isNaN(d) ? Infinity : d);
    const scale = Math.max(Math.abs(a[i]), Math.abs(b[i]));
    if (scale > 0) rel = Math.max(rel, d / scale);
  }
  return { abs, rel };
}

export interface TableSide {
  table: DecodedTable | null;
  error: string | null;
}

export interface TableDiff {
  columns: string[];
  rows: number;
  /** Per row of the preview, the columns whose cell differs (row-aligned: row i against row i). */
  changed: Array<Set<number>>;
  changedCells: number;
}

/** Row i of one table against row i of the other, column by column name. */
export function diffTables(a: DecodedTable, b: DecodedTable): TableDiff {
  const columns = [...new Set([...a.columns.map((c) => c.name), ...b.columns.map((c) => c.name)])];
  const ia = new Map(a.columns.map((c, i) => [c.name, i]));
  const ib = new Map(b.columns.map((c, i) => [c.name, i]));
  const rows = Math.max(a.numRows, b.numRows);
  const changed: Array<Set<number>> = [];
  let changedCells = 0;
  for (let r = 0; r < rows; r++) {
    const set = new Set<number>();
    columns.forEach((name, c) => {
      const ca = ia.get(name);
      const cb = ib.get(name);
      const va = ca === undefined || r >= a.numRows ? null : a.cell(r, ca);
      const vb = cb === undefined || r >= b.numRows ? null : b.cell(r, cb);
      if (va !== vb) set.add(c);
    });
    changedCells += set.size;
    changed.push(set);
  }
  return { columns, rows, changed, changedCells };
}

export type ResultPair =
  | { node: string; kind: 'scalar'; a: number; b: number; diff: number; rel: number }
  | { node: string; kind: 'array'; a: Extract<StoredResult, { kind: 'array' }>; b: Extract<StoredResult, { kind: 'array' }>; sameShape: boolean; abs: number | null; rel: number | null }
  | { node: string; kind: 'table'; a: TableSide; b: TableSide; rowsA: number; rowsB: number; diff: TableDiff | null }
  | { node: string; kind: 'json'; a: string; b: string; equal: boolean }
  /** Different kinds, or on one side only. */
  | { node: string; kind: 'other'; a: string; b: string };

function decodeSide(ipc: string): TableSide {
  try {
    return { table: decodeTable(ipc), error: null };
  } catch (e) {
    return { table: null, error: e instanceof Error ? e.message : String(e) };
  }
}

/** A short description of a stored result, for the 'other' rows (never its bulk data). */
export function describeResult(v: StoredResult | undefined): string {
  if (!v) return 'no result';
  if (v.kind === 'scalar') return `${v.dtype} ${v.value}`;
  if (v.kind === 'array') return `${v.dtype} array [${v.shape.join(' × ')}]`;
  if (v.kind === 'table') return `table, ${v.rows} rows × ${v.columns.length} columns`;
  return 'JSON value';
}

function arrayValues(v: Extract<StoredResult, { kind: 'array' }>): number[] | null {
  const s = v.summary;
  return s ? [s.min, s.mean, s.max, ...s.corner.data] : null;
}

export function pairResults(a: Record<string, StoredResult>, b: Record<string, StoredResult>): ResultPair[] {
  const nodes = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return nodes.map((node): ResultPair => {
    const x = a[node];
    const y = b[node];
    if (x?.kind === 'scalar' && y?.kind === 'scalar') {
      const diff = y.value - x.value;
      const scale = Math.max(Math.abs(x.value), Math.abs(y.value));
      return { node, kind: 'scalar', a: x.value, b: y.value, diff, rel: scale > 0 ? Math.abs(diff) / scale : 0 };
    }
    if (x?.kind === 'array' && y?.kind === 'array') {
      const sameShape = x.shape.length === y.shape.length && x.shape.every((n, i) => n === y.shape[i]);
      const va = arrayValues(x);
      const vb = arrayValues(y);
      const e = sameShape && va && vb && va.length === vb.length ? maxErrors(va, vb) : null;
      return { node, kind: 'array', a: x, b: y, sameShape, abs: e?.abs ?? null, rel: e?.rel ?? null };
    }
    if (x?.kind === 'table' && y?.kind === 'table') {
      const sa = decodeSide(x.ipc);
      const sb = decodeSide(y.ipc);
      return { node, kind: 'table', a: sa, b: sb, rowsA: x.rows, rowsB: y.rows, diff: sa.table && sb.table ? diffTables(sa.table, sb.table) : null };
    }
    if (x?.kind === 'json' && y?.kind === 'json') {
      const ta = JSON.stringify(x.value, null, 1) ?? 'null';
      const tb = JSON.stringify(y.value, null, 1) ?? 'null';
      return { node, kind: 'json', a: ta, b: tb, equal: ta === tb };
    }
    return { node, kind: 'other', a: describeResult(x), b: describeResult(y) };
  });
}

function short(v: JsonValue | undefined): string {
  if (v === undefined) return '(none)';
  const s = typeof v === 'string' ? JSON.stringify(v) : paramText(v);
  return s.length > 60 ? `${s.slice(0, 59)}…` : s;
}

/** One workflow difference (a path from the store's jsonDiff) in words. */
export function describeDifference(d: JsonDifference): string {
  const node = /^nodes\[id=([^\]]+)\](?:\.(.*))?$/.exec(d.path);
  if (node) {
    const [, id, rest] = node;
    if (rest === undefined) {
      const op = (v: JsonValue | undefined) => (v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v.op === 'string' ? ` (${v.op})` : '');
      if (d.a === undefined) return `node ${id} added${op(d.b)}`;
      if (d.b === undefined) return `node ${id} removed${op(d.a)}`;
      return `node ${id} changed`;
    }
    const param = /^params(?:\.|\[")([^"\]]+?)(?:"\])?(?:[.[].*)?$/.exec(rest);
    const what = param ? `param ${param[1]}` : rest;
    if (d.a === undefined) return `node ${id}: ${what} set to ${short(d.b)}`;
    if (d.b === undefined) return `node ${id}: ${what} removed (was ${short(d.a)})`;
    return `node ${id}: ${what} changed from ${short(d.a)} to ${short(d.b)}`;
  }
  const wp = /^params\.(.+)$/.exec(d.path);
  if (wp) return `workflow parameter $${wp[1]}: ${short(d.a)} → ${short(d.b)}`;
  if (d.path.startsWith('edges')) return d.a === undefined ? `connection added: ${short(d.b)}` : d.b === undefined ? `connection removed: ${short(d.a)}` : `connection changed: ${short(d.a)} → ${short(d.b)}`;
  return `${d.path || 'value'}: ${short(d.a)} → ${short(d.b)}`;
}
