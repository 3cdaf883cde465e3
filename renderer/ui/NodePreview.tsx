/**
 * A node's output on the canvas after a run: a scalar's value; an array's shape, dtype and a mini
 * histogram; a dataframe's rows × columns and its first rows; a search's best score. Small and
 * fixed-width so nodes keep their size and never overlap.
 */
import { useMemo } from 'react';
import type { ResultValue } from '../../common/results';
import { decodeTable } from '../logic/arrow-table';
import { readSearchResult } from '../logic/leaderboard';
import { formatNumber } from '../logic/format';

function MiniHist({ counts }: { counts: number[] }) {
  const w = 168;
  const h = 26;
  const max = Math.max(1, ...counts);
  const bw = w / Math.max(1, counts.length);
  return (
    <svg width={w} height={h} className="gf-minihist" role="img" aria-label="histogram">
      {counts.map((c, i) => (
        <rect key={i} x={i * bw} y={h - (h * c) / max} width={Math.max(1, bw - 1)} height={(h * c) / max} />
      ))}
    </svg>
  );
}

function TablePreview({ v }: { v: Extract<ResultValue, { kind: 'table' }> }) {
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

export function NodePreview({ v }: { v: ResultValue }) {
  let body;
  if (v.kind === 'scalar') body = <div className="gf-preview-scalar">{formatNumber(v.value)}</div>;
  else if (v.kind === 'table') body = <TablePreview v={v} />;
  else if (v.kind === 'json') {
    const s = readSearchResult(v.value);
    body = s ? (
      <div className="gf-preview-head">
        {s.strategy} · {s.trials} trials · best {s.metric} <strong>{s.bestScore === null ? '—' : formatNumber(s.bestScore)}</strong>
      </div>
    ) : (
      <div className="gf-preview-head">json</div>
    );
  } else if (v.shape.length === 0 && v.data?.length === 1) body = <div className="gf-preview-scalar">{formatNumber(v.data[0])}</div>;
  else
    body = (
      <>
        <div className="gf-preview-head">
          {v.dtype} [{v.shape.join(' × ')}]
        </div>
        {v.summary && <MiniHist counts={v.summary.histogram.counts} />}
        {v.summary && (
          <div className="gf-preview-range">
            <span>{formatNumber(v.summary.min)}</span>
            <span>{formatNumber(v.summary.max)}</span>
          </div>
        )}
      </>
    );
  return (
    <div className="gf-preview" data-testid="node-preview" data-kind={v.kind}>
      {body}
    </div>
  );
}
