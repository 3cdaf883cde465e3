/**
 * The problems list under the toolbar: what stops the graph from running (the shared graph rules,
 * fields that do not parse, what the server refused) and what failed on a node in the run on show,
 * each naming its node and field; a click
 * centres the node and focuses the field. Below them, errors that name no node (a runtime
 * failure), once each. One strip, so it never wraps the toolbar and is in view however large the
 * graph is; while problems are listed its height is fixed (it scrolls), so the canvas below does
 * not jump under the pointer each time a connection or a field fixes one.
 */
import { useMemo } from 'react';
import { mergeProblems, serverProblems, type Problem } from '../logic/problems';
import { useEditor, useRun, useSession } from './hooks';

function ProblemItem({ p }: { p: Problem }) {
  const session = useSession();
  if (p.node === null) return <div>{p.text}</div>;
  const node = p.node;
  return (
    <button className="gf-problem" data-testid="problem" data-node={node} data-field={p.field ?? ''} onClick={() => session.editor.getState().focusProblem(node, p.field)}>
      <span className="gf-problem-node">{node}</span>
      {p.text}
    </button>
  );
}

export function GeneralErrors() {
  const session = useSession();
  const local = useEditor((s) => s.problems);
  const server = useRun((s) => s.serverErrors);
  const general = useRun((s) => s.generalErrors);
  // A run that failed on a node says so here too: the node's own card may be off-screen.
  const runtime = useRun((s) => s.nodeErrors);
  const problems = useMemo(
    () =>
      mergeProblems(
        local,
        serverProblems(server).filter((p) => p.node !== null),
        Object.entries(runtime).flatMap(([node, list]) => list.map((text) => ({ node, field: null, text }))),
      ),
    [local, server, runtime],
  );
  const unique = [...new Set(general)];
  if (!unique.length && !problems.length) return null;
  return (
    <div className={`gf-general-errors${problems.length ? ' has-problems' : ''}`} role="alert" data-testid="general-errors">
      <div className="gf-general-list">
        {problems.length > 0 && (
          <div className="gf-problems" data-testid="problems">
            <strong>
              {problems.length} problem{problems.length > 1 ? 's' : ''}
            </strong>
            {problems.map((p) => (
              <ProblemItem key={`${p.node}\u0000${p.text}`} p={p} />
            ))}
          </div>
        )}
        {unique.map((g) => (
          <div key={g}>{g}</div>
        ))}
      </div>
      {unique.length > 0 && (
        <button className="gf-icon-btn" aria-label="dismiss" onClick={() => session.run.setState({ generalErrors: [] })}>
          ×
        </button>
      )}
    </div>
  );
}
