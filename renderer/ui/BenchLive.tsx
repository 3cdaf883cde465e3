/**
 * The benchmark running now, polled from the server twice a second (so a page opened mid-run sees
 * it too): configuration and repetition, each configuration's state, a bar of all runs, time so
 * far and left, and Cancel (the current run is cancelled, nothing is recorded); below, the task
 * stream of the benchmark's current run, live (session.benchLog, from the forwarded events). The
 * step never says "starting workers" beside a drawn run: the socket can show a configuration's
 * first run before the next poll says its workers are up.
 */
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { BenchProgress } from '../../common/api';
import { errorMessages } from '../api/api-error';
import { benchLive } from '../logic/bench-live';
import { useData, useSession } from './hooks';
import { TaskStream } from './TaskStream';

const POLL_MS = 500;

export function BenchLivePanel() {
  const session = useSession();
  const mine = useData((s) => s.bench.running);
  const [list, setList] = useState<BenchProgress[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [stopping, setStopping] = useState<string | null>(null);
  // Re-rendered when the benchmark's stream gets its first task or is cleared, not per event.
  const sub = useMemo(() => (fn: () => void) => session.benchLog.subscribe(fn), [session]);
  const drawn = useSyncExternalStore(sub, () => session.benchLog.n > 0 || session.benchLog.running.size > 0);
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const poll = async () => {
      try {
        const now = await session.api.benchProgress();
        if (stop) return;
        setList(now);
        if (now.length) session.followBench(now[now.length - 1]);
        // Poll on while one runs (or ours is starting); otherwise look again now and then.
        timer = setTimeout(() => void poll(), now.length || mine ? POLL_MS : 4 * POLL_MS);
      } catch (e) {
        if (!stop) setError(errorMessages(e).join('\n'));
      }
    };
    void poll();
    return () => {
      stop = true;
      if (timer) clearTimeout(timer);
    };
  }, [session, mine]);
  if (error) return <p className="gf-field-error">benchmark progress: {error}</p>;
  if (!list.length) return mine ? <p className="gf-muted" data-testid="bench-live">Starting the benchmark…</p> : null;
  return (
    <>
      {list.map((p) => {
        // A run drawn that this answer does not know of has started: the step is its first run, not "starting workers".
        const v = benchLive(drawn && p.phase === 'starting' && session.benchAhead(p) ? { ...p, phase: p.warmup > 0 ? 'warm-up' : 'timed' } : p);
        return (
          <div key={p.benchId} className="gf-card gf-bench-live" data-testid="bench-live" data-config={v.config} data-phase={p.phase}>
            <div className="gf-card-title">
              <h3>Benchmarking “{p.workflowName}”</h3>
              <span className="gf-muted">
                {p.repeat} repetition{p.repeat === 1 ? '' : 's'}, {p.warmup} warm-up per configuration
              </span>
              <button
                className="gf-small"
                disabled={stopping === p.benchId}
                onClick={() => {
                  setStopping(p.benchId);
                  session.api.cancelBench(p.benchId).catch((e: unknown) => setError(errorMessages(e).join('\n')));
                }}
                data-testid="cancel-bench"
              >
                {stopping === p.benchId ? 'Cancelling…' : 'Cancel benchmark'}
              </button>
            </div>
            <p data-testid="bench-live-step">
              <strong>{v.config}</strong> · {v.position} · {v.step}
              {p.lastMs !== null && <span className="gf-muted"> · last run {Math.round(p.lastMs)} ms</span>}
            </p>
            <progress max={1} value={v.fraction} aria-label={`benchmark ${Math.round(100 * v.fraction)}% done`} />
            <p className="gf-muted" data-testid="bench-live-time">
              {v.elapsed} so far · {v.left}
            </p>
            <ol className="gf-bench-configs">
              {v.states.map((s) => (
                <li key={s.name} data-state={s.state}>
                  {s.state === 'done' ? '✓' : s.state === 'running' ? '▶' : '·'} {s.name}
                </li>
              ))}
            </ol>
          </div>
        );
      })}
      <div className="gf-bench-stream">
        <TaskStream log={session.benchLog} live title="Task stream of the run going on now" testId="bench-stream" />
      </div>
    </>
  );
}
