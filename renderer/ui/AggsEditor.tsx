/** The list editor for a group-by's aggregations: one row per output column (logic/aggs-form.ts). */
import { useEffect, useState } from 'react';
import { AGGS } from '../../common/df-aggs';
import type { ParamValue } from '../../common/workflow';
import { aggRowsValue, readAggRows, type AggRow } from '../logic/aggs-form';

export function AggsEditor({ id, value, onChange }: { id: string; value: ParamValue | undefined; onChange: (v: ParamValue) => void }) {
  const read = readAggRows(value);
  const [rows, setRows] = useState<AggRow[]>(read.rows);
  const key = JSON.stringify(value ?? null);
  // A change from elsewhere (undo, another node) replaces the rows; our own edits round-trip equal.
  useEffect(() => {
    const now = readAggRows(value).rows;
    setRows((mine) => (JSON.stringify(aggRowsValue(mine)) === JSON.stringify(aggRowsValue(now)) ? mine : now));
  }, [key]); // `value` is read through its JSON `key`: a new array of equal rows is no change
  const update = (next: AggRow[]) => {
    setRows(next);
    onChange(aggRowsValue(next));
  };
  const set = (i: number, patch: Partial<AggRow>) => update(rows.map((r, k) => (k === i ? { ...r, ...patch } : r)));
  return (
    <div className="gf-aggs" id={id} role="group" aria-label="aggregations">
      {read.error && <small className="gf-field-error">{read.error}</small>}
      {rows.map((r, i) => (
        <div className="gf-aggs-row" key={i}>
          <input value={r.column} placeholder="column" aria-label={`aggregation ${i + 1} column`} onChange={(e) => set(i, { column: e.target.value })} />
          <select value={r.agg} aria-label={`aggregation ${i + 1} function`} onChange={(e) => set(i, { agg: AGGS.find((a) => a === e.target.value) ?? r.agg })}>
            {AGGS.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
          <input value={r.as} placeholder="as (optional)" aria-label={`aggregation ${i + 1} output name`} onChange={(e) => set(i, { as: e.target.value })} />
          <button className="gf-small" aria-label={`remove aggregation ${i + 1}`} onClick={() => update(rows.filter((_, k) => k !== i))}>
            ×
          </button>
        </div>
      ))}
      <button className="gf-small" onClick={() => setRows([...rows, { column: '', agg: 'sum', as: '' }])}>
        + aggregation
      </button>
    </div>
  );
}
