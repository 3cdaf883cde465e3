/** The "expand" button beside a result's heading: opens a leaderboard or a table at full width (ui/WideResult.tsx). */
import type { ResultValue } from '../../common/results';
import { readSearchResult } from '../logic/leaderboard';
import { useSession } from './hooks';

/** Whether a value gains from a wide view: a table, or a search's leaderboard. */
const opensWide = (v: ResultValue) => v.kind === 'table' || (v.kind === 'json' && readSearchResult(v.value) !== null);

/** The "expand" control beside a result's heading, for values that gain from a wide view. */
export function ExpandResult({ id, v }: { id: string; v: ResultValue }) {
  const session = useSession();
  if (!opensWide(v)) return null;
  return (
    <button
      type="button"
      className="gf-expand"
      data-testid={`expand-result-${id}`}
      title="Open this result at full width"
      aria-label={`open the result of ${id} at full width`}
      onClick={() => session.data.getState().set({ wideResult: id })}
    >
      ⤢ expand
    </button>
  );
}
