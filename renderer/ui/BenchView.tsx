/**
 * Benchmarks of the current workflow on 1 CPU core, all cores, 1 GPU and all GPUs, at full width:
 * a size control (the workflow's params, so the benchmark measures work, not overhead), a chart of
 * medians with min–max whiskers and the speedup against one CPU core (virtual GPUs hatched and
 * labelled), the digests-agree flag, the table, and earlier benchmarks of the same workflow beside
 * it. An empty workflow is refused here with the reason (and by the server).
 */
import { useEffect, useState } from 'react';
import { BENCH_MAX_REPEAT, BENCH_MAX_WARMUP } from '../../common/api';
import type { BenchmarkRecord } from '../../common/store-types';
import { axisMax, benchRows, sameWorkflow, type BenchRow } from '../logic/bench-chart';
import { formatDate } from '../logic/format';
import { formatMs } from '../logic/stream-draw';
import { BenchLivePanel } from './BenchLive';
import { useData, useEditor, useSession } from './hooks';
import { useWidth } from './use-width';

const ROW_H = 34;
const LABEL_W = 150;
const RIGHT_W = 150;

function Chart({ rows }: { rows: BenchRow[] }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const plotW = Math.max(60, width - LABEL_W - RIGHT_W);
  const max = axisMax(rows);
  const x = (ms: number) => LABEL_W + (plotW * ms) / max;
  const height = rows.length * ROW_H + 26;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * max);
  return (
    <div ref={ref} className="gf-chart-box" data-testid="bench-chart">
      <svg width={width} height={height} className="gf-chart" role="img" aria-label="benchmark medians with min-max whiskers">
        <defs>
          <pattern id="gf-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="6" height="6" className="bar virtual" />
            <line x1="0" y1="0" x2="0" y2="6" stroke="rgba(255,255,255,0.45)" strokeWidth="3" />
          </pattern>
        </defs>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={x(t)} x2={x(t)} y1={4} y2={rows.length * ROW_H + 4} className="axis" />
            <text x={Math.min(x(t), LABEL_W + plotW - 30)} y={rows.length * ROW_H + 20} className="muted gf-chart-label">
              {formatMs(t)}
            </text>
          </g>
        ))}
        {rows.map((r, i) => {
          const y = i * ROW_H + 6;
          return (
            <g key={r.name} data-config={r.name}>
              <text x={0} y={y + 16} className="gf-chart-label">
                {r.name}
              </text>
              {r.virtual && (
                <text x={0} y={y + 29} className="muted gf-chart-label" fontSize={10}>
                  virtual GPUs
                </text>
              )}
              {r.available ? (
                <>
                  <rect x={LABEL_W} y={y + 4} height={ROW_H - 14} width={Math.max(1, x(r.median!) - LABEL_W)} className={r.virtual ? 'bar virtual' : 'bar'} fill={r.virtual ? 'url(#gf-hatch)' : undefined} />
                  <line x1={x(r.min!)} x2={x(r.max!)} y1={y + 4 + (ROW_H - 14) / 2} y2={y + 4 + (ROW_H - 14) / 2} className="whisker" />
                  <line x1={x(r.min!)} x2={x(r.min!)} y1={y + 8} y2={y + ROW_H - 14} className="whisker" />
                  <line x1={x(r.max!)} x2={x(r.max!)} y1={y + 8} y2={y + ROW_H - 14} className="whisker" />
                  <text x={LABEL_W + plotW + 8} y={y + 16} className="gf-chart-label">
                    {formatMs(r.median!)}
                    {r.speedup !== null && <tspan className="muted"> · {r.speedup.toFixed(2)}×</tspan>}
                  </text>
                </>
              ) : (
                <text x={LABEL_W} y={y + 16} className="muted gf-chart-label">
                  unavailable: {(r.reason ?? '').slice(0, Math.floor(plotW / 6.5))}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </div>
  );
}

export function BenchTable({ rec }: { rec: BenchmarkRecord }) {
  const rows = benchRows(rec);
  return (
    <div data-testid="bench-record" data-digests-agree={String(rec.digestsAgree)} className="gf-card">
      <div className="gf-card-title">
        <h3>
          #{rec.id} {rec.workflowName}
        </h3>
        <span className="gf-muted">
          {formatDate(rec.created)} · {rec.repetitions} repetition{rec.repetitions === 1 ? '' : 's'}, {rec.warmup} warm-up · {Object.entries(rec.params).map(([k, v]) => `${k}=${String(v)}`).join(' ')}
        </span>
        <span className={`gf-flag ${rec.digestsAgree ? 'ok' : 'bad'}`} data-testid="digests-flag">
          {rec.digestsAgree ? '✓ digests agree' : '✗ digests differ'}
        </span>
      </div>
      <Chart rows={rows} />
      <div className="gf-table-wrap">
        <table className="gf-table">
          <thead>
            <tr>
              <th>configuration</th>
              <th className="num">workers</th>
              <th className="num">median</th>
              <th className="num">min – max</th>
              <th className="num">speedup</th>
              <th>digest</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={r.name}>
                <td>
                  {r.name} {r.virtual && <span className="gf-tag">virtual</span>}
                </td>
                {r.available ? (
                  <>
                    <td className="num">{r.workers}</td>
                    <td className="num">{formatMs(r.median!)}</td>
                    <td className="num">
                      {formatMs(r.min!)} – {formatMs(r.max!)}
                    </td>
                    <td className="num">{r.speedup === null ? '—' : `${r.speedup.toFixed(2)}×`}</td>
                    <td>
                      <code>{rec.configs[i].digest?.slice(0, 12) ?? '—'}</code>
                    </td>
                  </>
                ) : (
                  <td colSpan={5} className="gf-muted">
                    unavailable: {r.reason}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function Earlier({ list, shown }: { list: BenchmarkRecord[]; shown: BenchmarkRecord }) {
  const session = useSession();
  const same = sameWorkflow(list, shown);
  return (
    <aside className="gf-card" data-testid="bench-earlier">
      <h4 style={{ marginTop: 0 }}>Benchmarks of “{shown.workflowName}”</h4>
      {same.length <= 1 && <p className="gf-muted">No earlier benchmark of this workflow.</p>}
      <ul className="gf-earlier">
        {same.slice(0, 30).map((b) => {
          const rows = benchRows(b);
          const one = rows.find((r) => r.name === '1 CPU core');
          const best = Math.max(0, ...rows.map((r) => r.speedup ?? 0));
          return (
            <li key={b.id} className={b.id === shown.id ? 'current' : ''}>
              <button className="gf-link gf-ellipsis" onClick={() => session.data.getState().set({ bench: { ...session.data.getState().bench, last: b } })} title={formatDate(b.created)}>
                #{b.id} {formatDate(b.created).slice(5, 16)}
              </button>
              <span className="gf-muted gf-num gf-ellipsis">
                {one?.median != null ? formatMs(one.median) : '—'} · best {best ? `${best.toFixed(1)}×` : '—'}
              </span>
              <span className={b.digestsAgree ? 'gf-ok' : 'gf-bad'}>{b.digestsAgree ? '✓' : '✗'}</span>
            </li>
          );
        })}
      </ul>
    </aside>
  );
}

export function BenchView() {
  const session = useSession();
  const bench = useData((s) => s.bench);
  const list = useData((s) => s.benchmarks);
  const params = useEditor((s) => s.graph.params);
  const nodes = useEditor((s) => s.graph.nodes.length);
  const [repeat, setRepeat] = useState(3);
  const [warmup, setWarmup] = useState(1);
  useEffect(() => void session.refreshBenchmarks(), [session]);
  const shown = bench.last ?? list[0] ?? null;
  // The size row: every number or text param (N, chunks, dtype…); booleans stay in the inspector.
  const sized = Object.entries(params).filter((e): e is [string, number | string] => typeof e[1] === 'number' || typeof e[1] === 'string');
  const refusal = nodes === 0 ? 'The workflow is empty: add nodes or open an example to benchmark it.' : null;
  return (
    <div className="gf-view" data-testid="benchmarks">
      <div className="gf-view-bar">
        <h3>Benchmarks</h3>
        <label>
          repeat <input type="number" min={1} max={BENCH_MAX_REPEAT} value={repeat} aria-label="repeat (timed runs per configuration)" onChange={(e) => setRepeat(Math.min(BENCH_MAX_REPEAT, Math.max(1, Number(e.target.value))))} />
        </label>
        <label>
          warm-up <input type="number" min={0} max={BENCH_MAX_WARMUP} value={warmup} aria-label="warm-up (untimed runs per configuration)" onChange={(e) => setWarmup(Math.min(BENCH_MAX_WARMUP, Math.max(0, Number(e.target.value))))} />
        </label>
        <button className="gf-primary" disabled={bench.running || refusal !== null} title={refusal ?? ''} onClick={() => void session.startBench({ repeat, warmup })} data-testid="start-bench">
          {bench.running ? 'Benchmarking…' : 'Benchmark current workflow'}
        </button>
      </div>
      {sized.length > 0 && (
        <div className="gf-params-row gf-card" data-testid="bench-size">
          <strong>Size</strong>
          <span className="gf-muted">the workflow's params (also in the inspector):</span>
          {sized.map(([k, v]) => (
            <label key={k}>
              ${k}
              <input
                type={typeof v === 'number' ? 'number' : 'text'}
                defaultValue={String(v)}
                key={`${k}=${String(v)}`}
                aria-label={`param ${k}`}
                onBlur={(e) => {
                  if (typeof v === 'string') {
                    if (e.target.value !== v) session.editor.getState().setWorkflowParam(k, e.target.value);
                    return;
                  }
                  const n = Number(e.target.value);
                  if (Number.isFinite(n) && n !== v) session.editor.getState().setWorkflowParam(k, n);
                }}
              />
            </label>
          ))}
        </div>
      )}
      <BenchLivePanel />
      {refusal && (
        <p className="gf-field-error" data-testid="bench-refusal">
          {refusal}
        </p>
      )}
      {bench.error && (
        <p className="gf-field-error" data-testid="bench-error">
          {bench.error}
        </p>
      )}
      {shown ? (
        <div className="gf-bench-grid">
          <BenchTable rec={shown} />
          <Earlier list={list} shown={shown} />
        </div>
      ) : (
        <p className="gf-muted">No benchmark yet.</p>
      )}
    </div>
  );
}
