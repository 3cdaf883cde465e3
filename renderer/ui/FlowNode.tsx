/**
 * One workflow node on the canvas: title, state pill, typed ports (coloured by type), its key
 * params, progress while it runs, problems in plain words, and after a run a preview of its
 * output (NodePreview). Fixed width so long messages wrap instead of widening nodes into each other.
 * Subscribes by id.
 */
import { Handle, Position, useUpdateNodeInternals, type NodeProps } from '@xyflow/react';
import type { NodeKindSpec } from '../../common/catalog';
import { memo, useEffect, useMemo, useSyncExternalStore } from 'react';
import { absorbers, fusedOrigins } from '../logic/fusion';
import { keyParams } from '../logic/format';
import { nodeSignatures } from '../logic/node-signature';
import { nodeState, STATE_LABEL } from '../logic/node-state';
import { fieldKey } from '../state/editor-store';
import { countsSubscribe, useEditor, useRun, useRunCounts, useSession } from './hooks';
import { NodePreview } from './NodePreview';

export const PORT_COLORS: Record<string, string> = {
  array: 'var(--port-array)',
  dataframe: 'var(--port-dataframe)',
  model: 'var(--port-model)',
  scalar: 'var(--port-scalar)',
  dataset: 'var(--port-dataset)',
};

const PORT_TOP = 58;
const PORT_ROW = 22;

function FlowNodeImpl({ id, selected }: NodeProps) {
  const node = useEditor((s) => s.graph.nodes.find((n) => n.id === id));
  const spec = useEditor((s) => (node ? s.cat.get(node.op) : undefined));
  const connected = useEditor((s) =>
    s.graph.edges
      .filter((e) => e.target === id)
      .map((e) => e.targetPort)
      .join('|'),
  );
  const signature = useEditor((s) => nodeSignatures(s.graph).get(id) ?? '');
  const unparsed = useEditor((s) => Object.keys(s.invalid).some((k) => k.startsWith(fieldKey(id, ''))));
  // A node fused into another's tasks follows the progress of the nodes carrying its work.
  // Counts: a few renders a second while a run streams, not one per progress event (hooks.ts).
  const progress = useRunCounts((s) => {
    const own = s.progress[id];
    if (own && own[1] > 0) return own;
    return null;
  });
  const carriedBy = useEditor((s) => s.graph);
  const allProgress = useRunCounts((s) => s.progress);
  const errors = useRun((s) => s.nodeErrors[id]);
  const issues = useRun((s) => s.nodeIssues[id]);
  // This node's entries in the problems list (joined: a string compares by value, so the node re-renders only when they change).
  const ruleProblems = useEditor((s) => s.problems.filter((p) => p.node === id).map((p) => p.text).join('\n'));
  const inScope = useRun((s) => s.scope === null || s.scope.includes(id));
  const running = useRun((s) => (s.status === 'running' || s.status === 'starting') && (s.scope === null || s.scope.includes(id)) && s.pendingSigs[id] !== undefined);
  const doneSig = useRun((s) => s.doneSigs[id]);
  // Whether any of its tasks runs now: a boolean, so the node re-renders when it flips (at the counts' tick), not per event.
  const nodeTasks = useSession().nodeTasks;
  const subscribeTasks = useMemo(() => countsSubscribe((fn) => nodeTasks.subscribe(fn)), [nodeTasks]);
  const tasksRunning = useSyncExternalStore(subscribeTasks, () => nodeTasks.runningOf(id) > 0);
  const stopped = useRun((s) => s.status === 'cancelled' && (s.scope === null || s.scope.includes(id)) && s.pendingSigs[id] !== undefined);
  const reused = useRun((s) => s.reused.includes(id));
  const result = useRun((s) => s.result?.results[id]);
  const ports = spec ? `${spec.inputs.map((p) => p.name).join(',')}>${spec.outputs.map((p) => p.name).join(',')}` : '';
  const updateInternals = useUpdateNodeInternals();
  useEffect(() => updateInternals(id), [id, ports, updateInternals]);
  if (!node) return null;
  let shownProgress: [number, number] | undefined = progress ?? undefined;
  if (!shownProgress && Object.keys(allProgress).length) {
    const carriers = absorbers(fusedOrigins(carriedBy.nodes, carriedBy.edges, (n) => (allProgress[n]?.[1] ?? 0) > 0)).get(id);
    if (carriers?.length) shownProgress = carriers.reduce<[number, number]>((a, n) => [a[0] + allProgress[n][0], a[1] + allProgress[n][1]], [0, 0]);
  }
  const state = nodeState({
    node,
    spec,
    connectedInputs: new Set(connected ? connected.split('|') : []),
    progress: inScope ? shownProgress : undefined,
    runtimeErrors: errors?.length ?? 0,
    invalid: unparsed || (issues?.length ?? 0) > 0 || ruleProblems !== '',
    running,
    signature,
    doneSignature: doneSig,
    stopped,
    tasksRunning,
  });
  const pct = shownProgress && shownProgress[1] > 0 ? Math.round((100 * shownProgress[0]) / shownProgress[1]) : 0;
  const rows = Math.max(spec?.inputs.length ?? 0, spec?.outputs.length ?? 0, 1);
  const problems = [...new Set([...(errors ?? []), ...(ruleProblems ? ruleProblems.split('\n') : []), ...(issues ?? [])])];
  const showPreview = result && (state === 'done' || state === 'stale');
  return (
    <div className={`gf-node state-${state}${selected ? ' selected' : ''}${problems.length ? ' has-problem' : ''}`} data-node-id={id} data-state={state} data-problems={problems.length}>
      <div className="gf-node-title">
        <span className="gf-ellipsis">{node.label ?? spec?.label ?? node.op}</span>
        <span className="gf-node-id gf-ellipsis">{id}</span>
      </div>
      <div className="gf-node-state" data-testid={`node-state-${id}`}>
        <span className={`gf-pill state-${state}`}>{STATE_LABEL[state]}</span>
        {running && shownProgress && shownProgress[1] > 0 ? <span className="gf-num"> {shownProgress[0]}/{shownProgress[1]}</span> : null}
        {reused && state === 'done' && (
          <span className="gf-node-reused" data-testid={`node-reused-${id}`} title="not recomputed: its inputs and params are unchanged since a cached run">
            {' '}
            · reused
          </span>
        )}
      </div>
      {running && shownProgress && (
        <div className="gf-progress" title={`${pct}%`}>
          <div style={{ width: `${pct}%` }} />
        </div>
      )}
      <div className="gf-node-ports" style={{ height: rows * PORT_ROW }} />
      {spec && <Ports spec={spec} />}
      {Object.keys(node.params).length > 0 && (
        <dl className="gf-node-params">
          {keyParams(node.params).map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
        </dl>
      )}
      {problems.length ? (
        <div className="gf-node-error" data-testid={`node-error-${id}`}>
          {problems.map((e, i) => (
            <div key={i}>{e}</div>
          ))}
        </div>
      ) : null}
      {showPreview && <NodePreview v={result} />}
    </div>
  );
}

export const FlowNode = memo(FlowNodeImpl);

/**
 * The node's ports (handles and labels): memoised on the op's spec, so they do not re-render with
 * the card's counts while a run streams (each handle is a React Flow component of its own).
 */
const Ports = memo(function Ports({ spec }: { spec: NodeKindSpec }) {
  return (
    <>
      {spec.inputs.map((p, i) => (
        <div key={`in-${p.name}`}>
          <Handle
            type="target"
            position={Position.Left}
            id={p.name}
            style={{ top: PORT_TOP + 8 + i * PORT_ROW, background: PORT_COLORS[p.type] }}
            title={`${p.name}: ${p.type}${p.optional ? ' (optional)' : ''}`}
          />
          <span className="gf-port-label in" style={{ top: PORT_TOP + i * PORT_ROW }}>
            {p.name} <em style={{ color: PORT_COLORS[p.type] }}>{p.type}</em>
          </span>
        </div>
      ))}
      {spec.outputs.map((p, i) => (
        <div key={`out-${p.name}`}>
          <Handle type="source" position={Position.Right} id={p.name} style={{ top: PORT_TOP + 8 + i * PORT_ROW, background: PORT_COLORS[p.type] }} title={`${p.name}: ${p.type}`} />
          <span className="gf-port-label out" style={{ top: PORT_TOP + i * PORT_ROW }}>
            <em style={{ color: PORT_COLORS[p.type] }}>{p.type}</em> {p.name}
          </span>
        </div>
      ))}
    </>
  );
});
