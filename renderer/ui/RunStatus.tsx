/**
 * The toolbar's run status: the state, done/total tasks, reused tasks, the first error in its
 * tooltip. Its own component so that the counts, which change all through a run, re-render this
 * span a few times a second (useRunCounts) and not the whole toolbar.
 */
import { useRun, useRunCounts } from './hooks';

export function RunStatus() {
  const status = useRun((s) => s.status);
  const done = useRunCounts((s) => s.done);
  const total = useRunCounts((s) => s.total);
  const firstError = useRun((s) => s.generalErrors[0] ?? Object.values(s.nodeErrors)[0]?.[0] ?? null);
  const serverErrors = useRun((s) => s.serverErrors.length);
  const reusedTasks = useRun((s) => s.reusedTasks);
  return (
    <span
      className="gf-status"
      data-testid="run-status"
      data-status={status}
      role="status"
      title={status === 'failed' && firstError ? firstError : `${status}${total > 0 ? ` ${done}/${total} tasks` : ''}`}
    >
      {status === 'refused' ? `not run: ${serverErrors} problem${serverErrors === 1 ? '' : 's'} (listed below)` : status}
      {total > 0 && ` ${done}/${total}`}
      {reusedTasks > 0 && (
        <span className="gf-reused" data-testid="run-reused" data-tasks={reusedTasks}>
          {' '}
          ({reusedTasks} reused)
        </span>
      )}
    </span>
  );
}
