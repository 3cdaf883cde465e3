/** A table result's first rows on its node card (loaded on demand: it brings the Arrow decoder). */
import { useMemo } from 'react';
import type { ResultValue } from '../../common/results';
import { decodeTable } from '../logic/arrow-table';

export function TablePreview({ v }: { v: Extract<ResultValue, { kind: 'table' }> }) {
  const t = useMemo(() => {
    try {
      return decodeTable(v.ipc);
    } catch {
      return null;
    }
  }, [v.ipc]);
  const cols = v.columns.slice(0, 3);
  const rows = Math.min(3, t?.numRows ?? 0);
  return (
    <>
      <div className="gf-preview-head">
        table · {v.rows.toLocaleString()} rows × {v.columns.length} columns
      </div>
      {t && (
        <table className="gf-preview-table">
          <thead>
            <tr>
              {cols.map((c) => (
                <th key={c.name}>{c.name}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {Array.from({ length: rows }, (_, r) => (
              <tr key={r}>
                {cols.map((_, c) => (
                  <td key={c}>{t.cell(r, c)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
