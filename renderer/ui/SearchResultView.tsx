/** A search node's result: best params and score, the leaderboard (best first, stopped trials marked) and live curves. */
import { formatParams, isStopped, paramTexts, type SearchResultView as Search } from '../logic/leaderboard';
import { TrialCurvesChart } from './TrialCurvesChart';
import { seriesColor } from '../logic/curve-scale';

const fmtScore = (x: number | null) => (x === null ? '—' : Number(x.toPrecision(5)).toString());

export function SearchResultView({ node, s }: { node: string; s: Search }) {
  const order = s.rows.map((r) => r.trialId);
  const best = s.rows[0]?.rank === 1 ? s.rows[0].trialId : null;
  return (
    <div className="gf-search" data-testid="search-result">
      <div>
        {s.strategy} · {s.trials} trials · best {s.metric} <strong>{fmtScore(s.bestScore)}</strong>
        {s.bestParams && <> · {formatParams(s.bestParams)}</>}
      </div>
      <table className="gf-leaderboard">
        <thead>
          <tr>
            <th>#</th>
            <th>trial</th>
            <th>params</th>
            <th>epochs</th>
            <th>score</th>
            <th>status</th>
          </tr>
        </thead>
        <tbody>
          {s.rows.map((r, i) => (
            <tr key={r.trialId} className={isStopped(r) ? 'gf-stopped' : r.status === 'failed' ? 'gf-bad' : r.status === 'best' ? 'gf-ok' : ''} data-status={r.status}>
              <td>{r.rank ?? '—'}</td>
              <td>
                <span className="gf-swatch" style={{ background: seriesColor(i) }} /> {r.trialId}
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
