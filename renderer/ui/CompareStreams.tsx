/**
 * Compare's two task streams, one above the other on one time scale (the longer run's span), each
 * titled with its run's time: where one run spent its time that the other did not is seen at once.
 */
import { useEffect, useState } from 'react';
import { formatMs } from '../logic/stream-draw';
import type { TaskLog } from '../state/task-log';
import { useSession } from './hooks';
import { TaskStream } from './TaskStream';

const spanOf = (log: TaskLog) => (Number.isFinite(log.t0) ? log.endAt(null) - log.t0 : 0);

export function CompareStreams({ a, b, times }: { a: number; b: number; times: { aMs: number | null; bMs: number | null } }) {
  const session = useSession();
  const [state, setState] = useState<{ logs: [TaskLog, TaskLog] } | { error: string } | null>(null);
  useEffect(() => {
    let live = true;
    setState(null);
    Promise.all([session.storedLog(a), session.storedLog(b)]).then(
      (logs) => live && setState({ logs }),
      (e: unknown) => live && setState({ error: e instanceof Error ? e.message : String(e) }),
    );
    return () => {
      live = false;
    };
  }, [session, a, b]);
  if (!state) return <p className="gf-muted">Loading the task streams…</p>;
  if ('error' in state) return <p className="gf-field-error">Could not load the runs' task streams: {state.error}</p>;
  const span = Math.max(spanOf(state.logs[0]), spanOf(state.logs[1]));
  const runs = [
    { id: a, log: state.logs[0], ms: times.aMs },
    { id: b, log: state.logs[1], ms: times.bMs },
  ];
  return (
    <div data-testid="compare-streams">
      <h4>Task streams, #{a} above #{b}, on one time scale</h4>
      {runs.map((r) => (
        <div key={r.id} className="gf-compare-stream">
          <TaskStream log={r.log} title={`#${r.id} · ${r.ms === null ? 'no time recorded' : formatMs(r.ms)} · ${r.log.n} tasks and transfers`} testId={`compare-stream-${r.id}`} spanMs={span} />
        </div>
      ))}
    </div>
  );
}
