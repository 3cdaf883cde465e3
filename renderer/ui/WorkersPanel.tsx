/**
 * Workers: per worker its kind, cores, memory held against its limit, and two small time series
 * from main's sampler (main/cluster/worker-sampler.ts): utilisation (the GPU's own counter on a
 * real GPU, the share of task slots busy otherwise) and memory with the limit drawn; restart.
 * Polls every 2 s; the series come whole with each poll (main keeps the bounded ring).
 */
import { useEffect } from 'react';
import type { WorkerInfo } from '../../common/api';
import { gpuFallback } from '../logic/gpu-fallback';
import { usageChart } from '../logic/usage-chart';
import { formatBytes } from '../logic/stream-draw';
import { useData, useSession } from './hooks';

const CHART = { width: 120, height: 30, windowMs: 120_000 };

/** A GPU worker running without CUDA says on what, and why (logic/gpu-fallback.ts). */
function FallbackTag({ w }: { w: WorkerInfo }) {
  const f = gpuFallback(w);
  if (!f) return null;
  return (
    <span className="gf-tag bad" data-testid={`fallback-${w.id}`} title={`cuda unavailable: ${f.reason}`}>
      no CUDA · runs on {f.backend}
    </span>
  );
}

function UsageCharts({ w }: { w: WorkerInfo }) {
  const memLimit = w.deviceMemory ?? w.memoryLimit;
  const c = usageChart(w.samples, w.memoryLimit, CHART);
  const last = w.samples[w.samples.length - 1];
  const utilWhat = w.utilSource === 'gpu-counter' ? 'GPU utilisation (nvidia-smi)' : 'task slots busy';
  const memWhat = w.utilSource === 'gpu-counter' ? 'device memory used' : 'chunk memory held';
  return (
    <div className="gf-usage">
      <figure title={`${utilWhat}, last ${CHART.windowMs / 1000} s`}>
        <svg width={CHART.width} height={CHART.height} data-testid={`util-series-${w.id}`} data-points={c.points} data-peak={Math.max(0, ...w.samples.map((s) => s.util))} data-last={last?.util ?? ''}>
          <rect x={0} y={0} width={CHART.width} height={CHART.height} className="gf-usage-bg" />
          {c.util && <polyline points={c.util} className="gf-usage-util" />}
        </svg>
        <figcaption>
          {w.kind === 'gpu' ? 'util' : 'busy'} {last ? `${Math.round(last.util * 100)}%` : '–'}
        </figcaption>
      </figure>
      <figure title={`${memWhat} against the worker's limit (${formatBytes(w.memoryLimit)}, dashed)${w.deviceMemory ? `; device ${formatBytes(memLimit)}` : ''}`}>
        <svg width={CHART.width} height={CHART.height} data-testid={`mem-series-${w.id}`} data-points={c.points}>
          <rect x={0} y={0} width={CHART.width} height={CHART.height} className="gf-usage-bg" />
          <line x1={0} x2={CHART.width} y1={c.limitY} y2={c.limitY} className="gf-usage-limit" />
          {c.mem && <polyline points={c.mem} className="gf-usage-mem" />}
        </svg>
        <figcaption>
          mem {last ? formatBytes(last.memBytes) : '–'} / {formatBytes(w.memoryLimit)}
        </figcaption>
      </figure>
    </div>
  );
}

export function WorkersPanel() {
  const session = useSession();
  const workers = useData((s) => s.workers);
  useEffect(() => {
    const t = setInterval(() => void session.refreshWorkers(), 2000);
    return () => clearInterval(t);
  }, [session]);
  return (
    <section className="gf-workers gf-panel" data-testid="workers">
      <header className="gf-panel-head">
        <strong>Workers</strong>
        <span className="gf-muted">{workers.filter((w) => w.alive).length} up</span>
      </header>
      <div className="gf-panel-body">
        {workers.map((w) => {
          const share = w.memoryLimit > 0 ? Math.min(1, w.heldBytes / w.memoryLimit) : 0;
          return (
            <div key={w.id} className={`gf-worker${w.alive ? '' : ' down'}`} data-worker={w.id}>
              <div className="gf-worker-head">
                <strong>{w.label}</strong> {w.kind === 'virtual-gpu' && <span className="gf-tag">virtual</span>}
                {!w.alive && (
                  <span className="gf-tag bad" title={w.gone}>
                    {w.gone ? 'gone' : 'down'}
                  </span>
                )}
                <FallbackTag w={w} />
                <span className="gf-muted gf-ellipsis">{w.kind === 'cpu' ? `${w.threads} cores` : `${w.threads} host thread${w.threads === 1 ? '' : 's'}`}</span>
                <button className="gf-small" data-testid={`restart-${w.id}`} onClick={() => void session.api.restartWorker(w.id).then(() => session.refreshWorkers())} title={`Restart ${w.label} (restarted ${w.restarts}×)`}>
                  Restart
                </button>
              </div>
              <div
                className={`gf-membar${share > 0.85 ? ' high' : ''}`}
                data-testid={`membar-${w.id}`}
                data-share={share.toFixed(4)}
                title={`held ${formatBytes(w.heldBytes)} of ${formatBytes(w.memoryLimit)} · rss ${formatBytes(w.rss)}`}
              >
                <div style={{ width: `${share * 100}%` }} />
                <span>
                  {formatBytes(w.heldBytes)} / {formatBytes(w.memoryLimit)}
                </span>
              </div>
              <UsageCharts w={w} />
            </div>
          );
        })}
        {!workers.length && <p className="gf-muted">No workers reported yet.</p>}
      </div>
    </section>
  );
}
