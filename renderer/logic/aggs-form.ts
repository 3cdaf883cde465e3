/**
 * The group-by aggregations param as editable rows (column, aggregation, output name) instead of
 * one line of JSON. `readAggRows` reads whatever the document holds (rows it cannot read are
 * reported, so nothing is lost silently); `aggRowsValue` writes the rows back, leaving out rows
 * with no column yet.
 */
import { AGGS, type Agg } from '../../common/df-aggs';
import type { ParamValue } from '../../common/workflow';

export interface AggRow {
  column: string;
  agg: Agg;
  as: string;
}

const isAgg = (x: unknown): x is Agg => typeof x === 'string' && (AGGS as readonly string[]).includes(x);

export function readAggRows(v: ParamValue | undefined): { rows: AggRow[]; error: string | null } {
  if (v === undefined || v === null) return { rows: [], error: null };
  if (!Array.isArray(v)) return { rows: [], error: 'aggs is not a list: edit it as rows below to replace it' };
  const rows: AggRow[] = [];
  for (const [i, x] of v.entries()) {
    if (x === null || typeof x !== 'object' || Array.isArray(x) || typeof x.column !== 'string' || !isAgg(x.agg)) return { rows, error: `aggs[${i}] is not {column, agg}: ${JSON.stringify(x)}` };
    rows.push({ column: x.column, agg: x.agg, as: typeof x.as === 'string' ? x.as : '' });
  }
  return { rows, error: null };
}

export function aggRowsValue(rows: readonly AggRow[]): ParamValue {
  return rows
    .filter((r) => r.column.trim() !== '')
    .map((r): ParamValue => {
      const out: Record<string, ParamValue> = { column: r.column.trim(), agg: r.agg };
      if (r.as.trim()) out.as = r.as.trim();
      return out;
    });
}
