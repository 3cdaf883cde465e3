/**
 * A search node's result: best params and score, the leaderboard (best first, stopped trials
 * marked; a click on a header sorts by that column as the table view does) and live curves.
 */
import { useMemo, useState } from 'react';
import { formatParams, isStopped, LEADERBOARD_COLUMNS, leaderboardCell, paramTexts, type SearchResultView as Search } from '../logic/leaderboard';
import { nextSort, sortRows, type SortDir } from '../logic/table-sort';
import { TrialCurvesChart } from './TrialCurvesChart';
import { seriesColor } from '../logic/curve-scale';

const fmtScore = (x: number | null) => (x === null ? '—' : Number(x.toPrecision(5)).toString());

export function SearchResultView({ node, s }: { node: string; s: Search }) {
  const order = s.rows.map((r) => r.trialId);
  const best = s.rows[0]?.rank === 1 ? s.rows[0].trialId : null;
  const [sort, setSort] = useState<{ col: number; dir: SortDir } | null>(null);
  // Indices into s.rows (best first): a trial keeps its curve's colour whatever the sort.
  const shown = useMemo(() => (sort ? sortRows(s.rows.length, (r, c) => leaderboardCell(s.rows[r], c), sort.col, sort.dir) : s.rows.map((_, i) => i)), [s.rows, sort]);
  return (
    <div className="gf-search" data-testid="search-result">
      <div>
        {s.strategy} · {s.trials} trials · best {s.metric} <strong>{fmtScore(s.bestScore)}</strong>
        {s.bestParams && <> · {formatParams(s.bestParams)}</>}
      </div>
      <table className="gf-leaderboard">
        <thead>
          <tr>
            {LEADERBOARD_COLUMNS.map((name, ci) => (
              <th key={name} aria-sort={sort?.col === ci ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
                <button type="button" className="gf-table-sort" data-testid={`lb-sort-${name}`} onClick={() => setSort((cur) => nextSort(cur, ci))}>
                  {name}
                  {sort?.col === ci ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((i) => s.rows[i]).map((r, k) => (
            <tr key={r.trialId} className={isStopped(r) ? 'gf-stopped' : r.status === 'failed' ? 'gf-bad' : r.status === 'best' ? 'gf-ok' : ''} data-status={r.status}>
              <td>{r.rank ?? '—'}</td>
              <td>
                <span className="gf-swatch" style={{ background: seriesColor(shown[k]) }} /> {r.trialId}
              </td>
              <td className="gf-lb-params">
                {paramTexts(r.params).map((t) => {
                  // One param a line, a line break offered after its '=' before any inside a number.
                  const eq = t.indexOf('=') + 1;
                  return (
                    <span key={t}>
                      {t.slice(0, eq)}
                      <wbr />
                      {t.slice(eq)}
                    </span>
                  );
                })}
              </td>
              <td>{r.epochs}</td>
              <td>{fmtScore(r.score)}</td>
              <td title={r.error}>{isStopped(r) ? '✂ stopped (halving)' : r.status}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <TrialCurvesChart node={node} order={order} best={best} />
    </div>
  );
}
