/**
 * The run's progress, one bar per graph node as on Dask's progress page: done, running, erred and
 * waiting tasks in four colours, with counts; after a cancel, the tasks it stopped in a colour of
 * their own (they did not fail), named in the legend only then so it stays short. A node fused into another's tasks shows the bar of
 * the node that carries its work ("fused into …").
 */
import { useMemo, useSyncExternalStore } from 'react';
import { absorbers, fusedOrigins } from '../logic/fusion';
import { progressSegments } from '../state/node-tasks';
import { countsSubscribe, useEditor, useRun, useRunCounts, useSession } from './hooks';

export function ProgressPanel() {
  const session = useSession();
  const nodes = useEditor((s) => s.graph.nodes);
  const edges = useEditor((s) => s.graph.edges);
  // Counts: re-rendered a few times a second while a run streams, not per event (hooks.ts).
  const progress = useRunCounts((s) => s.progress);
  const status = useRun((s) => s.status);
  const sub = useMemo(() => countsSubscribe((fn) => session.nodeTasks.subscribe(fn)), [session]);
  // The running / erred counts (NodeTasks): at the counts' tick, in the same commit as the progress.
  useSyncExternalStore(sub, () => session.nodeTasks.version);
  const absorbed = useMemo(() => absorbers(fusedOrigins(nodes, edges, (id) => (progress[id]?.[1] ?? 0) > 0)), [nodes, edges, progress]);
  const hasRun = Object.keys(progress).length > 0;
  return (
    <section className="gf-progress-panel gf-panel" data-testid="progress-panel">
      <header className="gf-panel-head">
        <strong>Progress</strong>
        <span className="gf-legend-inline">
          <i className="seg-done" /> done <i className="seg-running" /> running <i className="seg-erred" /> erred{' '}
          {session.nodeTasks.cancelled && (
            <>
              <i className="seg-cancelled" /> cancelled{' '}
            </>
          )}
          <i className="seg-waiting" /> waiting
        </span>
      </header>
      <div className="gf-panel-body">
        {!hasRun && <p className="gf-muted">{status === 'starting' ? 'Starting…' : 'Run the workflow to see one bar per node.'}</p>}
        {hasRun &&
          nodes.map((n) => {
            const carriers = absorbed.get(n.id);
            const src = progress[n.id] && progress[n.id][1] > 0 ? [n.id] : (carriers ?? []);
            const [done, total] = src.reduce<[number, number]>((a, id) => [a[0] + (progress[id]?.[0] ?? 0), a[1] + (progress[id]?.[1] ?? 0)], [0, 0]);
            const running = src.reduce((a, id) => a + session.nodeTasks.runningOf(id), 0);
            const erred = src.reduce((a, id) => a + session.nodeTasks.erredOf(id), 0);
            const seg = progressSegments(done, total, running, erred, session.nodeTasks.cancelled);
            const pct = (x: number) => `${total ? (100 * x) / total : 0}%`;
            return (
              <div key={n.id} className="gf-pbar" data-node={n.id} data-done={seg.done} data-total={seg.total} data-running={seg.running} data-erred={seg.erred} data-cancelled={seg.cancelled}>
                <div className="gf-pbar-label">
                  <span className="gf-ellipsis" title={n.id}>
                    {n.id}
                    {carriers && src === carriers ? <span className="gf-muted"> · fused into {carriers.join(', ')}</span> : null}
                  </span>
                  <span className="gf-num">
                    {seg.done}/{seg.total}
                  </span>
                </div>
                <div className="gf-pbar-track" title={`done ${seg.done} · running ${seg.running} · erred ${seg.erred} · cancelled ${seg.cancelled} · waiting ${seg.waiting}`}>
                  <div className="seg-done" style={{ width: pct(seg.done) }} />
                  <div className="seg-running" style={{ width: pct(seg.running) }} />
                  <div className="seg-erred" style={{ width: pct(seg.erred) }} />
                  <div className="seg-cancelled" style={{ width: pct(seg.cancelled) }} />
                </div>
              </div>
            );
          })}
      </div>
    </section>
  );
}
