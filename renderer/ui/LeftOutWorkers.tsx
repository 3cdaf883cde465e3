/**
 * A warning line under a run's status naming the workers it went without (a worker that failed to
 * start after its retries, or whose device is gone), from the run's stats. Kept apart from the
 * panels so their layout can change without touching it.
 */
import type { RunStats } from '../../common/results';
import { leftOutWarning } from '../logic/left-out';

export function LeftOutWorkers({ stats }: { stats: RunStats }) {
  const text = leftOutWarning(stats);
  if (text === null) return null;
  return (
    <div className="gf-field-error" role="status" data-testid="left-out-workers" data-workers={(stats.leftOut ?? []).map((o) => o.worker).join(' ')}>
      ⚠ {text}
    </div>
  );
}
