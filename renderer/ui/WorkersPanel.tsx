/** Workers: kind, label, memory held against its limit, RSS over time, restart. Polls every 2 s. */
import { useEffect } from 'react';
import { formatBytes } from '../logic/stream-draw';
import { useData, useSession } from './hooks';

function Spark({ values }: { values: number[] }) {
  if (values.length < 2) return null;
  const max = Math.max(...values, 1);
  const pts = values.map((v, i) => `${(i / (values.length - 1)) * 80},${20 - (20 * v) / max}`).join(' ');
  return (
    <svg width={80} height={20} className="gf-spark">
      <polyline points={pts} fill="none" stroke="#2f6fdf" />
    </svg>
  );
}

export function WorkersPanel() {
  const session = useSession();
  const workers = useData((s) => s.workers);
  const memory = useData((s) => s.memory);
  useEffect(() => {
    const t = setInterval(() => void session.refreshWorkers(), 2000);
    return () => clearInterval(t);
  }, [session]);
  return (
    <div className="gf-workers" data-testid="workers">
      {workers.map((w) => {
        const frac = w.memoryLimit > 0 ? Math.min(1, w.heldBytes / w.memoryLimit) : 0;
        return (
          <div key={w.id} className={`gf-worker${w.alive ? '' : ' down'}`} data-worker={w.id}>
            <div>
              <strong>{w.label}</strong> <span className="gf-muted">{w.id}</span> {w.kind === 'virtual-gpu' && <span className="gf-tag">virtual</span>}
              {!w.alive && <span className="gf-tag bad">down</span>}
            </div>
            <div className="gf-membar" title={`${formatBytes(w.heldBytes)} held of ${formatBytes(w.memoryLimit)} limit`}>
              <div style={{ width: `${frac * 100}%` }} />
            </div>
            <div className="gf-muted">
              {w.threads} threads · held {formatBytes(w.heldBytes)} / {formatBytes(w.memoryLimit)} · rss {formatBytes(w.rss)} · restarts {w.restarts}
            </div>
            <Spark values={memory[w.id] ?? []} />
            <button onClick={() => void session.api.restartWorker(w.id).then(() => session.refreshWorkers())}>Restart</button>
          </div>
        );
      })}
      {!workers.length && <p className="gf-muted">No workers reported yet.</p>}
    </div>
  );
}
