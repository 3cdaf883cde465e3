/** The run's outputs: scalars, array summaries with a histogram and corner, JSON; and a replay's digest check. */
import type { ArraySummary, ResultValue } from '../../common/results';
import { readSearchResult } from '../logic/leaderboard';
import { lazy, Suspense, useMemo, type ReactNode } from 'react';
import { useEditor, useRun, useSession, useVersion } from './hooks';
import { LeftOutWorkers } from './LeftOutWorkers';
import { GpuSharing } from './GpuSharing';
import { ExpandResult } from './ExpandResult';

// Tables (Arrow) and search charts load when a result needs them, so the editor paints first.
const TableView = lazy(() => import('./TableView').then((m) => ({ default: m.TableView })));
const SearchResultView = lazy(() => import('./SearchResultView').then((m) => ({ default: m.SearchResultView })));
const LiveSearch = lazy(() => import('./LiveSearch').then((m) => ({ default: m.LiveSearch })));

const Later = ({ children }: { children: ReactNode }) => <Suspense fallback={<span className="gf-muted">Loading…</span>}>{children}</Suspense>;

export function Histogram({ h, width = 260, height = 70 }: { h: ArraySummary['histogram']; width?: number; height?: number }) {
  const max = Math.max(1, ...h.counts);
  const w = width / Math.max(1, h.counts.length);
  return (
    <svg width={width} height={height} className="gf-hist" role="img" aria-label="histogram">
      {h.counts.map((c, i) => (
        <rect key={i} x={i * w} y={height - (height * c) / max} width={Math.max(1, w - 1)} height={(height * c) / max} fill="#2f6fdf">
          <title>{c}</title>
        </rect>
      ))}
    </svg>
  );
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : Math.abs(x) >= 1e6 || Math.abs(x) < 1e-3 ? x.toExponential(6) : x.toPrecision(10);
}

/** One node's output: scalar, search leaderboard, JSON, table or array preview (dtype, shape, summary, corner). */
export function Value({ node, v }: { node: string; v: ResultValue }) {
  if (v.kind === 'scalar') return <span className="gf-scalar" data-value={v.value}>{fmt(v.value)}</span>;
  if (v.kind === 'json') {
    const search = readSearchResult(v.value);
    if (search)
      return (
        <Later>
          <SearchResultView node={node} s={search} />
        </Later>
      );
    return <pre className="gf-json">{JSON.stringify(v.value, null, 2)}</pre>;
  }
  if (v.kind === 'table')
    return (
      <Later>
        <TableView v={v} />
      </Later>
    );
  const scalarLike = v.shape.length === 0 && v.data?.length === 1;
  if (scalarLike) return <span className="gf-scalar" data-value={v.data![0]}>{fmt(v.data![0])}</span>;
  return (
    <div>
      <div>
        {v.dtype} [{v.shape.join(' × ')}]
      </div>
      {v.summary && (
        <>
          <div className="gf-muted">
            min {fmt(v.summary.min)} · mean {fmt(v.summary.mean)} · max {fmt(v.summary.max)}
          </div>
          <Histogram h={v.summary.histogram} />
          <table className="gf-corner">
            <tbody>
              {Array.from({ length: v.summary.corner.shape[0] ?? 0 }, (_, r) => (
                <tr key={r}>
                  {Array.from({ length: v.summary!.corner.shape[1] ?? 1 }, (_, c) => (
                    <td key={c}>{fmt(v.summary!.corner.data[r * (v.summary!.corner.shape[1] ?? 1) + c])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {!v.summary && v.data && <div className="gf-muted">{v.data.slice(0, 16).map(fmt).join(', ')}</div>}
    </div>
  );
}

/** Before the result: live search leaderboards while a search runs, else a hint. */
function LiveResults() {
  const session = useSession();
  const running = useRun((s) => s.status === 'running');
  const sub = useMemo(() => session.curves.subscribe.bind(session.curves), [session]);
  useVersion(sub);
  const nodes = running ? session.curves.nodes() : [];
  if (!nodes.length) return <div className="gf-results gf-muted">Run the workflow to see its results here.</div>;
  return (
    <div className="gf-results" data-testid="results-live">
      <Later>
        {nodes.map((n) => (
          <LiveSearch key={n} node={n} />
        ))}
      </Later>
    </div>
  );
}

export function ResultsPanel() {
  const result = useRun((s) => s.result);
  const replayOf = useRun((s) => s.replayOf);
  const selected = useEditor((s) => (s.selectedNodes.length === 1 ? s.selectedNodes[0] : null));
  if (!result) return <LiveResults />;
  const entries = Object.entries(result.results);
  const shown = selected && result.results[selected] ? entries.filter(([k]) => k === selected) : entries;
  return (
    <div className="gf-results" data-testid="results" data-status={result.status} data-digest={result.digest ?? ''}>
      <div>
        <strong>{result.status}</strong> · {result.stats.tasks} tasks · {result.stats.durationMs} ms · digest <code>{result.digest?.slice(0, 12) ?? '—'}</code>
        {result.storeId !== null && <> · run #{result.storeId}</>}
      </div>
      {replayOf && (
        <div data-testid="replay-check" data-match={String(replayOf.digest === result.digest)} className={replayOf.digest === result.digest ? 'gf-ok' : 'gf-bad'}>
          Replay of run #{replayOf.storeId}: digest {replayOf.digest === result.digest ? 'equal ✓' : `differs ✗ (was ${replayOf.digest?.slice(0, 12) ?? 'none'})`}
        </div>
      )}
      {result.error && <div className="gf-field-error">{result.error}</div>}
      <LeftOutWorkers stats={result.stats} />
      <GpuSharing stats={result.stats} />
      {shown.map(([k, v]) => (
        <div key={k} className="gf-result" data-testid={`result-${k}`}>
          <h4>
            {k} <ExpandResult id={k} v={v} />
          </h4>
          <Value node={k} v={v} />
        </div>
      ))}
    </div>
  );
}
