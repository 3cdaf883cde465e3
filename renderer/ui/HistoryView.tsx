/** Stored runs: status, duration, devices, digest; open one's task stream, replay it, compare two. */
import { useEffect } from 'react';
import { useData, useSession } from './hooks';

export function HistoryView() {
  const session = useSession();
  const runs = useData((s) => s.history);
  const picked = useData((s) => s.compareIds);
  const cmp = useData((s) => s.comparison);
  useEffect(() => void session.refreshHistory(), [session]);
  const toggle = (id: number) => {
    const next = picked.includes(id) ? picked.filter((x) => x !== id) : [...picked, id].slice(-2);
    session.data.getState().set({ compareIds: next, comparison: null });
  };
  const show = (f: () => Promise<void>) => () => void f().catch((e: unknown) => alert(e instanceof Error ? e.message : String(e)));
  return (
    <div className="gf-view" data-testid="history">
      <div className="gf-view-bar">
        <h3>History</h3>
        <button onClick={() => void session.refreshHistory()}>Refresh</button>
        <button disabled={picked.length !== 2} onClick={show(() => session.compare(picked[0], picked[1]))}>
          Compare {picked.length === 2 ? `#${picked[0]} and #${picked[1]}` : '(pick two)'}
        </button>
      </div>
      <table className="gf-table">
        <thead>
          <tr>
            <th />
            <th>#</th>
            <th>workflow</th>
            <th>status</th>
            <th>started</th>
            <th>duration</th>
            <th>digest</th>
            <th>replay of</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} data-run={r.id}>
              <td>
                <input type="checkbox" checked={picked.includes(r.id)} onChange={() => toggle(r.id)} aria-label={`compare run ${r.id}`} />
              </td>
              <td>{r.id}</td>
              <td>{r.workflowName}</td>
              <td className={`status-${r.status}`}>{r.status}</td>
              <td>{new Date(r.started).toLocaleString()}</td>
              <td>{r.durationMs === null ? '—' : `${r.durationMs} ms`}</td>
              <td>
                <code>{r.resultDigest?.slice(0, 12) ?? '—'}</code>
              </td>
              <td>{r.replayOf ?? ''}</td>
              <td>
                <button onClick={show(async () => { await session.openRun(r.id); session.data.getState().set({ view: 'editor' }); })}>Open stream</button>
                <button onClick={show(async () => { session.data.getState().set({ view: 'editor' }); await session.replay(r.id); })}>Replay</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!runs.length && <p className="gf-muted">No runs stored yet.</p>}
      {cmp && (
        <div className="gf-compare" data-testid="comparison">
          <h4>
            Run #{picked[0]} vs #{picked[1]}
          </h4>
          <p>
            {cmp.sameWorkflow ? 'same workflow' : 'different workflows'} · digests {cmp.sameDigest ? 'equal' : 'differ'} · {cmp.times.aMs ?? '—'} ms vs {cmp.times.bMs ?? '—'} ms
            {cmp.times.ratio !== null && ` (× ${cmp.times.ratio.toFixed(2)})`} · {cmp.status.a} / {cmp.status.b}
          </p>
          {(['workflow', 'params', 'seeds', 'devices', 'backends', 'results'] as const).map((k) =>
            cmp[k].length ? (
              <div key={k}>
                <strong>{k}</strong>
                <ul>
                  {cmp[k].map((d, i) => (
                    <li key={i}>
                      <code>{d.path}</code>: {JSON.stringify(d.a)} → {JSON.stringify(d.b)}
                    </li>
                  ))}
                </ul>
              </div>
            ) : null,
          )}
        </div>
      )}
    </div>
  );
}
