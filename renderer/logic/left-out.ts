/** The warning a run's result shows for the workers it went without (RunStats.leftOut), as text. */
import type { RunStats } from '../../common/results';

/** One line naming every worker left out and why, or null when the run had them all. */
export function leftOutWarning(stats: Pick<RunStats, 'leftOut'>): string | null {
  const out = stats.leftOut ?? [];
  if (out.length === 0) return null;
  return `Ran without ${out.map((o) => o.worker).join(', ')}: ${out.map((o) => `${o.worker} ${o.reason}`).join('; ')}`;
}
