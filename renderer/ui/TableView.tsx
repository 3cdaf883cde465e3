/**
 * A dataframe result: its Arrow IPC preview decoded once, shown as a virtualised table. A click on a
 * column's header sorts the preview's rows by it (ascending, descending, then back to the rows' own
 * order); the # column keeps each row's own number.
 */
import { useMemo, useState } from 'react';
import type { ResultValue } from '../../common/results';
import { decodeTable } from '../logic/arrow-table';
import { nextSort, sortRows, type SortDir } from '../logic/table-sort';
import { virtualWindow } from '../logic/virtual-window';

const ROW_H = 22;
const VIEW_H = ROW_H * 24;

type TableValue = Extract<ResultValue, { kind: 'table' }>;

export function TableView({ v }: { v: TableValue }) {
  const decoded = useMemo(() => {
    try {
      return { table: decodeTable(v.ipc), error: null };
    } catch (e) {
      return { table: null, error: e instanceof Error ? e.message : String(e) };
    }
  }, [v.ipc]);
  const [scrollTop, setScrollTop] = useState(0);
  const [sort, setSort] = useState<{ col: number; dir: SortDir } | null>(null);
  const t = decoded.table;
  const order = useMemo(() => (t && sort ? sortRows(t.numRows, t.value, sort.col, sort.dir) : null), [t, sort]);
  const n = t?.numRows ?? 0;
  const win = virtualWindow(scrollTop, VIEW_H, ROW_H, n);
  const columns = t?.columns ?? v.columns;
  const template = `56px repeat(${columns.length}, minmax(90px, 1fr))`;
  return (
    <div className="gf-table" data-testid="table-view" data-rows={v.rows} data-preview-rows={n}>
      <div className="gf-muted">
        {v.rows.toLocaleString()} rows · {columns.length} columns
        {v.truncated && <> · showing the first {n.toLocaleString()} rows</>}
      </div>
      {decoded.error && <div className="gf-field-error">Could not decode the table: {decoded.error}</div>}
      <div className="gf-table-scroll" style={{ height: Math.min(VIEW_H, win.totalHeight) + ROW_H + 2 }} onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}>
        <div className="gf-table-head" style={{ gridTemplateColumns: template, height: ROW_H }}>
          <span>#</span>
          {columns.map((c, ci) => (
            <span key={c.name} title={`${c.name}: ${c.type}${'arrowType' in c ? ` (Arrow ${c.arrowType})` : ''}`} aria-sort={sort?.col === ci ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
              <button type="button" className="gf-table-sort" data-testid={`sort-${c.name}`} disabled={!t} onClick={() => setSort((cur) => nextSort(cur, ci))}>
                {c.name} <em>{c.type}</em>
                {sort?.col === ci ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
              </button>
            </span>
          ))}
        </div>
        <div style={{ height: win.totalHeight, position: 'relative' }}>
          {t &&
            Array.from({ length: win.end - win.start }, (_, k) => {
              const r = order ? order[win.start + k] : win.start + k;
              return (
                <div key={r} className="gf-table-row" style={{ gridTemplateColumns: template, height: ROW_H, top: (win.start + k) * ROW_H }}>
                  <span className="gf-muted">{r}</span>
                  {columns.map((c, ci) => (
                    <span key={c.name}>{t.cell(r, ci)}</span>
                  ))}
                </div>
              );
            })}
        </div>
      </div>
    </div>
  );
}
