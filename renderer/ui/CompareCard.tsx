/**
 * Compare of two stored runs: status, digests and times on one line, the workflow differences in
 * words, the other differences (params, seeds, devices, backends) as short lines, and both runs'
 * results decoded side by side (logic/result-compare.ts): never base64 Arrow IPC on the page;
 * then both runs' task streams one above the other (CompareStreams.tsx).
 */
import { useEffect, useState } from 'react';
import type { RunComparison } from '../../common/store-types';
import { formatNumber } from '../logic/format';
import { describeDifference, pairResults, readStoredResults, type ResultPair } from '../logic/result-compare';
import { formatMs } from '../logic/stream-draw';
import { CompareStreams } from './CompareStreams';
import { useSession } from './hooks';

const MAX_ROWS = 50;

/** Numbers to compare in full (12 significant digits), so two close values do not print alike. */
const exact = (x: number) => (Number.isFinite(x) ? String(Number(x.toPrecision(12))) : String(x));

function TablePair({ p }: { p: Extract<ResultPair, { kind: 'table' }> }) {
  const d = p.diff;
  if (!d || !p.a.table || !p.b.table) return <p className="gf-field-error">Could not decode: {p.a.error ?? p.b.error}</p>;
  const ta = p.a.table;
  const tb = p.b.table;
  const cell = (t: typeof ta, r: number, name: string) => {
    const c = t.columns.findIndex((x) => x.name === name);
    return c < 0 || r >= t.numRows ? '' : t.cell(r, c);
  };
  const shown = Math.min(d.rows, MAX_ROWS);
  return (
    <div className="gf-table-wrap">
      <p className="gf-muted">
        {p.rowsA} rows vs {p.rowsB} rows · {d.changedCells === 0 ? 'every previewed cell equal' : `${d.changedCells} cell${d.changedCells === 1 ? '' : 's'} differ (marked)`}
        {d.rows > shown && ` · first ${shown} of ${d.rows} preview rows`}
      </p>
      <table className="gf-table gf-compare-table" data-testid={`compare-table-${p.node}`} data-changed={d.changedCells}>
        <thead>
          <tr>
            <th className="num">#</th>
            {d.columns.map((c) => (
              <th key={c} colSpan={2}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {Array.from({ length: shown }, (_, r) => (
            <tr key={r}>
              <td className="num gf-muted">{r}</td>
              {d.columns.map((c, ci) => {
                const changed = d.changed[r].has(ci);
                return [
                  <td key={`${c}a`} className={changed ? 'gf-changed' : undefined}>
                    {cell(ta, r, c)}
                  </td>,
                  <td key={`${c}b`} className={changed ? 'gf-changed' : undefined}>
                    {cell(tb, r, c)}
                  </td>,
                ];
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Pair({ p, a, b }: { p: ResultPair; a: number; b: number }) {
  switch (p.kind) {
    case 'scalar':
      return (
        <p data-testid={`compare-scalar-${p.node}`} data-diff={p.diff}>
          #{a} <strong>{exact(p.a)}</strong> · #{b} <strong>{exact(p.b)}</strong> · difference {exact(p.diff)}
          {p.rel > 0 && <span className="gf-muted"> (relative {p.rel.toExponential(2)})</span>}
        </p>
      );
    case 'array':
      return (
        <p data-testid={`compare-array-${p.node}`}>
          #{a} {p.a.dtype} [{p.a.shape.join(' × ')}] · #{b} {p.b.dtype} [{p.b.shape.join(' × ')}]
          {!p.sameShape && <strong className="gf-bad"> · shapes differ</strong>}
          {p.abs !== null && p.rel !== null && (
            <span title="over the min, mean, max and top-left corner the store keeps of each array">
              {' '}
              · max abs error {formatNumber(p.abs)} · max rel error {p.rel.toExponential(2)}
            </span>
          )}
        </p>
      );
    case 'table':
      return <TablePair p={p} />;
    case 'json':
      return p.equal ? (
        <p className="gf-muted">equal JSON values</p>
      ) : (
        <div className="gf-compare-side">
          <pre className="gf-json">{p.a}</pre>
          <pre className="gf-json">{p.b}</pre>
        </div>
      );
    default:
      return (
        <p>
          #{a} {p.a} · #{b} {p.b}
        </p>
      );
  }
}

/** Both runs' results, fetched from the store and decoded. */
function Results({ a, b }: { a: number; b: number }) {
  const session = useSession();
  const [state, setState] = useState<{ pairs: ResultPair[]; unreadable: string[] } | { error: string } | null>(null);
  useEffect(() => {
    let live = true;
    setState(null);
    Promise.all([session.api.run(a), session.api.run(b)]).then(
      ([ra, rb]) => {
        const x = readStoredResults(ra.results);
        const y = readStoredResults(rb.results);
        if (live) setState({ pairs: pairResults(x.results, y.results), unreadable: [...new Set([...x.unreadable, ...y.unreadable])] });
      },
      (e: unknown) => live && setState({ error: e instanceof Error ? e.message : String(e) }),
    );
    return () => {
      live = false;
    };
  }, [session, a, b]);
  if (!state) return <p className="gf-muted">Loading the results…</p>;
  if ('error' in state) return <p className="gf-field-error">Could not load the runs' results: {state.error}</p>;
  return (
    <div data-testid="compare-results">
      <h4>Results, #{a} beside #{b}</h4>
      {!state.pairs.length && <p className="gf-muted">Neither run stored a result.</p>}
      {state.pairs.map((p) => (
        <div key={p.node} className="gf-result" data-node={p.node}>
          <h5>{p.node}</h5>
          <Pair p={p} a={a} b={b} />
        </div>
      ))}
      {state.unreadable.length > 0 && <p className="gf-field-error">Results that could not be read: {state.unreadable.join(', ')}</p>}
    </div>
  );
}

export function CompareCard({ cmp, a, b }: { cmp: RunComparison; a: number; b: number }) {
  const other = (['params', 'seeds', 'devices', 'backends'] as const).filter((k) => cmp[k].length);
  return (
    <div className="gf-card gf-diff" data-testid="comparison">
      <div className="gf-card-title">
        <h3>
          Run #{a} vs #{b}
        </h3>
        <span className={`gf-flag ${cmp.sameDigest ? 'ok' : 'bad'}`}>{cmp.sameDigest ? '✓ digests equal' : '✗ digests differ'}</span>
        <span className="gf-muted">
          {cmp.sameWorkflow ? 'same workflow' : 'different workflows'} · {cmp.times.aMs === null ? '—' : formatMs(cmp.times.aMs)} vs {cmp.times.bMs === null ? '—' : formatMs(cmp.times.bMs)}
          {cmp.times.ratio !== null && ` (× ${cmp.times.ratio.toFixed(2)})`} · {cmp.status.a} / {cmp.status.b}
        </span>
      </div>
      {cmp.workflow.length > 0 && (
        <div data-testid="compare-workflow">
          <h4>Workflow changes</h4>
          <ul>
            {cmp.workflow.map((d, i) => (
              <li key={i}>{describeDifference(d)}</li>
            ))}
          </ul>
        </div>
      )}
      {other.map((k) => (
        <div key={k}>
          <h4>{k}</h4>
          <ul>
            {cmp[k].map((d, i) => (
              <li key={i}>{describeDifference(d)}</li>
            ))}
          </ul>
        </div>
      ))}
      <Results a={a} b={b} />
      <CompareStreams a={a} b={b} times={cmp.times} />
    </div>
  );
}
