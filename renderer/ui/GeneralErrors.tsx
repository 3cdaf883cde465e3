/** Errors that name no node (a refused run, a runtime failure), once each, in a strip under the toolbar so it never wraps. */
import { useRun, useSession } from './hooks';

export function GeneralErrors() {
  const session = useSession();
  const general = useRun((s) => s.generalErrors);
  const unique = [...new Set(general)];
  if (!unique.length) return null;
  return (
    <div className="gf-general-errors" role="alert" data-testid="general-errors">
      <div className="gf-general-list">
        {unique.map((g) => (
          <div key={g}>{g}</div>
        ))}
      </div>
      <button className="gf-icon-btn" aria-label="dismiss" onClick={() => session.run.setState({ generalErrors: [] })}>
        ×
      </button>
    </div>
  );
}
