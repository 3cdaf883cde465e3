/**
 * A node's output on the canvas after a run: a scalar's value; an array's shape, dtype and a mini
 * histogram; a dataframe's rows × columns and its first rows; a search's best score. Small and
 * fixed-width so nodes keep their size and never overlap.
 */
import { lazy, Suspense } from 'react';
import type { ResultValue } from '../../common/results';
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

// Arrow (the table decoder) loads with the first table on the canvas, not with the editor.
const TablePreview = lazy(() => import('./TablePreview').then((m) => ({ default: m.TablePreview })));

export function NodePreview({ v }: { v: ResultValue }) {
  let body;
  if (v.kind === 'scalar') body = <div className="gf-preview-scalar">{formatNumber(v.value)}</div>;
  else if (v.kind === 'table')
    body = (
      <Suspense fallback={<div className="gf-preview-head">table · {v.rows.toLocaleString()} rows</div>}>
        <TablePreview v={v} />
      </Suspense>
    );
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
