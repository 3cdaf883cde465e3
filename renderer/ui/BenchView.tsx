/** Benchmarks of the current workflow on 1 CPU core, all cores, 1 GPU, all GPUs: table, bar chart, digest check. */
import { useEffect, useState } from 'react';
import type { BenchmarkRecord } from '../../common/store-types';
import { formatMs } from '../logic/stream-draw';
import { useData, useSession } from './hooks';

function Bars({ rec }: { rec: BenchmarkRecord }) {
  const avail = rec.configs.filter((c) => c.available && c.median !== null);
  const max = Math.max(1, ...avail.map((c) => c.median!));
  return (
    <svg width={520} height={rec.configs.length * 30 + 10} className="gf-bars" role="img" aria-label="benchmark medians">
      {rec.configs.map((c, i) => (
        <g key={c.name} transform={`translate(0, ${i * 30 + 4})`}>
          <text x={0} y={16} fontSize={12}>
            {c.name}
            {c.virtual ? ' (virtual)' : ''}
          </text>
          {c.available && c.median !== null ? (
            <>
              <rect x={150} y={2} height={20} width={(300 * c.median) / max} fill={c.virtual ? '#c9a227' : '#2f6fdf'} />
              <text x={155 + (300 * c.median) / max} y={16} fontSize={12}>
                {formatMs(c.median)}
              </text>
            </>
          ) : (
            <text x={150} y={16} fontSize={12} fill="#888">
              unavailable: {c.unavailableReason ?? 'not run'}
            </text>
          )}
        </g>
      ))}
    </svg>
  );
}

export function BenchTable({ rec }: { rec: BenchmarkRecord }) {
  return (
    <div data-testid="bench-record" data-digests-agree={String(rec.digestsAgree)}>
      <p>
        #{rec.id} {rec.workflowName} · {new Date(rec.created).toLocaleString()} · {rec.repetitions} repetitions, {rec.warmup} warm-up ·{' '}
        <span className={rec.digestsAgree ? 'gf-ok' : 'gf-bad'}>{rec.digestsAgree ? 'digests agree ✓' : 'digests differ ✗'}</span>
      </p>
      <Bars rec={rec} />
      <table className="gf-table">
        <thead>
          <tr>
            <th>configuration</th>
            <th>workers</th>
            <th>median</th>
            <th>spread</th>
            <th>times</th>
            <th>digest</th>
          </tr>
        </thead>
        <tbody>
          {rec.configs.map((c) => (
            <tr key={c.name}>
              <td>
                {c.name} {c.virtual && <span className="gf-tag">virtual</span>}
              </td>
              {c.available ? (
                <>
                  <td>{c.workers}</td>
                  <td>{c.median === null ? '—' : formatMs(c.median)}</td>
                  <td>{c.spread === null ? '—' : `${(c.spread * 100).toFixed(1)} %`}</td>
                  <td>{c.times.map((t) => Math.round(t)).join(', ')}</td>
                  <td>
                    <code>{c.digest?.slice(0, 12) ?? '—'}</code>
                  </td>
                </>
              ) : (
                <td colSpan={5} className="gf-muted">
                  unavailable: {c.unavailableReason}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function BenchView() {
  const session = useSession();
  const bench = useData((s) => s.bench);
  const list = useData((s) => s.benchmarks);
  const [repeat, setRepeat] = useState(3);
  const [warmup, setWarmup] = useState(1);
  useEffect(() => void session.refreshBenchmarks(), [session]);
  const shown = bench.last ?? list[0] ?? null;
  return (
    <div className="gf-view" data-testid="benchmarks">
      <div className="gf-view-bar">
        <h3>Benchmarks</h3>
        <label>
          repeat <input type="number" min={1} value={repeat} onChange={(e) => setRepeat(Math.max(1, Number(e.target.value)))} />
        </label>
        <label>
          warm-up <input type="number" min={0} value={warmup} onChange={(e) => setWarmup(Math.max(0, Number(e.target.value)))} />
        </label>
        <button disabled={bench.running} onClick={() => void session.startBench({ repeat, warmup })} data-testid="start-bench">
          {bench.running ? 'Benchmarking…' : 'Benchmark current workflow'}
        </button>
      </div>
      {bench.error && <p className="gf-field-error">{bench.error}</p>}
      {shown ? <BenchTable rec={shown} /> : <p className="gf-muted">No benchmark yet.</p>}
      {list.length > 1 && (
        <>
          <h4>Earlier</h4>
          <ul>
            {list.slice(0, 20).map((b) => (
              <li key={b.id}>
                <button className="gf-link" onClick={() => session.data.getState().set({ bench: { ...bench, last: b } })}>
                  #{b.id} {b.workflowName} {new Date(b.created).toLocaleString()} {b.digestsAgree ? '✓' : '✗'}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
