/**
 * Stored runs at full width: status, start date, duration, digest; open one (its workflow in the
 * editor and its task stream), replay it (the same, then a digest check), compare two.
 */
import { useEffect } from 'react';
import { formatDate } from '../logic/format';
import { formatMs } from '../logic/stream-draw';
import { CompareCard } from './CompareCard';
import { useData, useEditor, useSession } from './hooks';

const LOSE = 'Opening a stored run replaces the workflow in the editor, which has unsaved changes. Go on?';

export function HistoryView() {
  const session = useSession();
  const runs = useData((s) => s.history);
  const picked = useData((s) => s.compareIds);
  const cmp = useData((s) => s.comparison);
  const dirty = useEditor((s) => s.dirty);
  useEffect(() => void session.refreshHistory(), [session]);
  const toggle = (id: number) => {
    const next = picked.includes(id) ? picked.filter((x) => x !== id) : [...picked, id].slice(-2);
    session.data.getState().set({ compareIds: next, comparison: null });
  };
  const show = (f: () => Promise<void>) => () => {
    if (dirty && !confirm(LOSE)) return;
    void f().catch((e: unknown) => session.editor.getState().setNotice({ kind: 'error', text: e instanceof Error ? e.message : String(e) }));
  };
  return (
    <div className="gf-view" data-testid="history">
      <div className="gf-view-bar">
        <h3>History</h3>
        <button onClick={() => void session.refreshHistory()}>Refresh</button>
        <button className="gf-primary" disabled={picked.length !== 2} onClick={() => void session.compare(picked[0], picked[1])} data-testid="compare">
          Compare {picked.length === 2 ? `#${picked[0]} and #${picked[1]}` : '(tick two runs)'}
        </button>
      </div>
      {cmp && picked.length === 2 && <CompareCard cmp={cmp} a={picked[0]} b={picked[1]} />}
      <div className="gf-card gf-table-wrap">
        <table className="gf-table">
          <thead>
            <tr>
              <th aria-label="compare" />
              <th className="num">#</th>
              <th>workflow</th>
              <th>status</th>
              <th>started</th>
              <th className="num">duration</th>
              <th>digest</th>
              <th>replay of</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id} data-run={r.id} className={picked.includes(r.id) ? 'picked' : ''}>
                <td>
                  <input type="checkbox" checked={picked.includes(r.id)} onChange={() => toggle(r.id)} aria-label={`compare run ${r.id}`} />
                </td>
                <td className="num">{r.id}</td>
                <td>{r.workflowName}</td>
                <td className={`status-${r.status}`}>{r.status}</td>
                <td className="gf-num">{formatDate(r.started)}</td>
                <td className="num">{r.durationMs === null ? '—' : formatMs(r.durationMs)}</td>
                <td>
                  <code>{r.resultDigest?.slice(0, 12) ?? '—'}</code>
                </td>
                <td>{r.replayOf === null ? '' : `#${r.replayOf}`}</td>
                <td>
                  <button
                    className="gf-small"
                    onClick={show(async () => {
                      await session.openRun(r.id);
                      session.data.getState().set({ view: 'editor' });
                    })}
                  >
                    Open stream
                  </button>
                  <button
                    className="gf-small"
                    onClick={show(async () => {
                      session.data.getState().set({ view: 'editor' });
                      await session.replay(r.id);
                    })}
                  >
                    Replay
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {!runs.length && <p className="gf-muted">No runs stored yet.</p>}
      </div>
    </div>
  );
}
