/**
 * A search while it runs: a live leaderboard from the trials' progress events (epochs so far, the
 * latest loss and metric, lowest loss first) and their curves, so a Hyperband or random search
 * shows something before it ends. Each trial has its own progress line: "epoch n of m" (m its
 * current rung's target) with a bar. The final leaderboard (SearchResultView) replaces it.
 */
import { useMemo } from 'react';
import { useSession, useVersion } from './hooks';
import { TrialCurvesChart } from './TrialCurvesChart';
import { seriesColor } from '../logic/curve-scale';
import { formatNumber } from '../logic/format';

export function LiveSearch({ node }: { node: string }) {
  const curves = useSession().curves;
  const sub = useMemo(() => curves.subscribe.bind(curves), [curves]);
  useVersion(sub);
  const rows = curves
    .curves(node)
    .map((c) => ({ trial: c.trial, metric: c.metric, epochs: Math.max(0, ...c.loss.map((p) => p.epoch), ...c.value.map((p) => p.epoch)), target: c.target, loss: c.loss.at(-1)?.value ?? null, value: c.value.at(-1)?.value ?? null }))
    .sort((a, b) => (a.loss ?? Infinity) - (b.loss ?? Infinity));
  if (!rows.length) return null;
  return (
    <div className="gf-result" data-testid={`live-search-${node}`}>
      <h4>{node} · live</h4>
      <table className="gf-leaderboard">
        <thead>
          <tr>
            <th>trial</th>
            <th>progress</th>
            <th>loss</th>
            <th>{rows[0].metric}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={r.trial}>
              <td>
                <span className="gf-swatch" style={{ background: seriesColor(i) }} /> {r.trial}
              </td>
              <td className="gf-trial-progress" data-epoch={r.epochs} data-target={r.target ?? ''}>
                {r.target === null ? (
                  r.epochs
                ) : (
                  <>
                    <span>
                      epoch {r.epochs} of {r.target}
                    </span>
                    <progress max={r.target} value={Math.min(r.epochs, r.target)} aria-label={`trial ${r.trial}: epoch ${r.epochs} of ${r.target}`} />
                  </>
                )}
              </td>
              <td>{r.loss === null ? '—' : formatNumber(r.loss)}</td>
              <td>{r.value === null ? '—' : formatNumber(r.value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <TrialCurvesChart node={node} order={rows.map((r) => r.trial)} best={rows[0]?.trial ?? null} />
    </div>
  );
}
