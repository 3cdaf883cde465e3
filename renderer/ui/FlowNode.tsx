/** One workflow node on the canvas: typed handles, its state, progress bar and errors. Subscribes by id. */
import { Handle, Position, useUpdateNodeInternals, type NodeProps } from '@xyflow/react';
import { memo, useEffect } from 'react';
import { nodeState } from '../logic/node-state';
import { useEditor, useRun } from './hooks';

export const PORT_COLORS: Record<string, string> = {
  array: '#2f6fdf',
  dataframe: '#1f9d55',
  model: '#9b4dca',
  scalar: '#d97706',
  dataset: '#0e7490',
};

const STATE_LABEL = { unconfigured: 'not configured', ready: 'ready', running: 'running', done: 'done', failed: 'failed' } as const;

function FlowNodeImpl({ id, selected }: NodeProps) {
  const node = useEditor((s) => s.graph.nodes.find((n) => n.id === id));
  const spec = useEditor((s) => (node ? s.cat.get(node.op) : undefined));
  const connected = useEditor((s) =>
    s.graph.edges
      .filter((e) => e.target === id)
      .map((e) => e.targetPort)
      .join('|'),
  );
  const progress = useRun((s) => s.progress[id]);
  const errors = useRun((s) => s.nodeErrors[id]);
  // Run selected covers part of the graph: nodes outside it keep their own state.
  const inRun = useRun((s) => s.scope === null || s.scope.includes(id));
  const status = useRun((s) => (s.scope === null || s.scope.includes(id) ? s.status : 'idle'));
  const reused = useRun((s) => s.reused.includes(id));
  // The canvas passes measured sizes back (GraphEditor), so xyflow keeps handle positions until the
  // size changes; ports that appear or change (catalog arriving, another op under this id) re-measure.
  const ports = spec ? `${spec.inputs.map((p) => p.name).join(',')}>${spec.outputs.map((p) => p.name).join(',')}` : '';
  const updateInternals = useUpdateNodeInternals();
  useEffect(() => updateInternals(id), [id, ports, updateInternals]);
  if (!node) return null;
  const state = nodeState(node, spec, new Set(connected ? connected.split('|') : []), inRun ? progress : undefined, errors, status);
  const pct = progress && progress[1] > 0 ? Math.round((100 * progress[0]) / progress[1]) : 0;
  const rows = Math.max(spec?.inputs.length ?? 0, spec?.outputs.length ?? 0, 1);
  return (
    <div className={`gf-node state-${state}${selected ? ' selected' : ''}`} data-node-id={id} data-state={state} style={{ minHeight: 44 + rows * 22 }}>
      <div className="gf-node-title">
        <span>{node.label ?? spec?.label ?? node.op}</span>
        <span className="gf-node-id">{id}</span>
      </div>
      <div className="gf-node-state" data-testid={`node-state-${id}`}>
        {STATE_LABEL[state]}
        {state === 'running' || (progress && inRun && state !== 'failed') ? ` ${progress?.[0] ?? 0}/${progress?.[1] ?? 0}` : ''}
        {reused && state === 'done' && (
          <span className="gf-node-reused" data-testid={`node-reused-${id}`} title="not recomputed: its inputs and params are unchanged since a cached run">
            {' '}
            · reused
          </span>
        )}
      </div>
      {progress && inRun && (
        <div className="gf-progress" title={`${pct}%`}>
          <div style={{ width: `${pct}%` }} />
        </div>
      )}
      {spec?.inputs.map((p, i) => (
        <div key={`in-${p.name}`}>
          <Handle
            type="target"
            position={Position.Left}
            id={p.name}
            style={{ top: 52 + i * 22, background: PORT_COLORS[p.type] }}
            title={`${p.name}: ${p.type}${p.optional ? ' (optional)' : ''}`}
          />
          <span className="gf-port-label in" style={{ top: 44 + i * 22 }}>
            {p.name} <em>{p.type}</em>
          </span>
        </div>
      ))}
      {spec?.outputs.map((p, i) => (
        <div key={`out-${p.name}`}>
          <Handle type="source" position={Position.Right} id={p.name} style={{ top: 52 + i * 22, background: PORT_COLORS[p.type] }} title={`${p.name}: ${p.type}`} />
          <span className="gf-port-label out" style={{ top: 44 + i * 22 }}>
            <em>{p.type}</em> {p.name}
          </span>
        </div>
      ))}
      {errors?.length ? (
        <div className="gf-node-error" data-testid={`node-error-${id}`}>
          {errors.map((e, i) => (
            <div key={i}>{e}</div>
          ))}
        </div>
      ) : null}
    </div>
  );
}

export const FlowNode = memo(FlowNodeImpl);
