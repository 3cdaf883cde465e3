/**
 * The form for the selected node, generated from its kind's ParamSpec, with a message under each
 * field that does not parse, and under them the node's result from the run on show (value, array
 * preview with shape and dtype, table with its column types), where the eye already is; with no
 * node selected, the workflow's name and parameter table.
 */
import { useEffect, useState } from 'react';
import type { ParamSpec } from '../../common/catalog';
import type { ParamValue } from '../../common/workflow';
import { formatParam, parseParam, type ParamTable } from '../logic/param-form';
import { fieldKey } from '../state/editor-store';
import { useEditor, useRun, useSession } from './hooks';
import { AggsEditor } from './AggsEditor';
import { Value } from './ResultsPanel';
import { ExpandResult } from './ExpandResult';

function ParamField({ nodeId, spec, value, table }: { nodeId: string; spec: ParamSpec; value: ParamValue | undefined; table: ParamTable }) {
  const session = useSession();
  const shown = formatParam(spec, value);
  // A draft that does not parse lives in the editor store (Run waits for it), so it survives reselecting the node.
  const stored = useEditor((s) => s.invalid[fieldKey(nodeId, spec.name)]);
  const serverError = useRun((s) => s.fieldErrors[nodeId]?.[spec.name]);
  const [draft, setDraft] = useState(stored?.text ?? shown);
  useEffect(() => {
    setDraft(session.editor.getState().invalid[fieldKey(nodeId, spec.name)]?.text ?? shown);
  }, [shown, nodeId, spec.name, session]);
  const error = stored?.error ?? null;
  const commit = (text: string) => {
    const r = parseParam(spec, text, table);
    const ed = session.editor.getState();
    if (!r.ok) return ed.setInvalid(nodeId, spec.name, { text, error: r.error });
    ed.setInvalid(nodeId, spec.name, null);
    if (JSON.stringify(r.value) !== JSON.stringify(value)) ed.setParam(nodeId, spec.name, r.value);
  };
  const id = `param-${nodeId}-${spec.name}`;
  const placeholder = spec.default !== undefined ? `default ${JSON.stringify(spec.default)}` : spec.required ? 'required' : '';
  let input;
  if (spec.kind === 'enum') {
    input = (
      <select id={id} name={spec.name} value={typeof value === 'string' ? value : (spec.default ?? '')} onChange={(e) => commit(e.target.value)}>
        {!spec.default && <option value="">—</option>}
        {spec.options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    );
  } else if (spec.kind === 'boolean') {
    const on = value === undefined ? spec.default === true : value === true;
    input = (
      <label className="gf-switch">
        <input id={id} name={spec.name} type="checkbox" role="switch" aria-checked={on} checked={on} onChange={(e) => commit(String(e.target.checked))} />
        <span>{on ? 'on' : 'off'}</span>
      </label>
    );
  } else if (spec.kind === 'json' && spec.name === 'aggs') {
    input = <AggsEditor id={id} value={value} onChange={(v) => session.editor.getState().setParam(nodeId, spec.name, v)} />;
  } else {
    input = (
      <input
        id={id}
        name={spec.name}
        value={draft}
        placeholder={placeholder}
        aria-invalid={error || serverError ? true : undefined}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={() => commit(draft)}
        onKeyDown={(e) => e.key === 'Enter' && commit(draft)}
      />
    );
  }
  return (
    <div className={`gf-field${error || serverError ? ' invalid' : ''}`}>
      <label htmlFor={id}>
        {spec.name}
        {spec.required ? ' *' : ''} <em>{spec.kind}</em>
      </label>
      {input}
      {spec.doc && <small className="gf-muted">{spec.doc}</small>}
      {(error ?? serverError) && (
        <small className="gf-field-error" role="alert" data-testid={`param-error-${spec.name}`}>
          {error ?? serverError}
        </small>
      )}
    </div>
  );
}

function WorkflowForm() {
  const session = useSession();
  const name = useEditor((s) => s.graph.name);
  const params = useEditor((s) => s.graph.params);
  const tasks = useRun((s) => s.tasksEstimate);
  const [newName, setNewName] = useState('');
  return (
    <div>
      <h3>Workflow</h3>
      <div className="gf-field">
        <label htmlFor="wf-name">name</label>
        <input id="wf-name" defaultValue={name} key={name} onBlur={(e) => e.target.value !== name && session.editor.getState().rename(e.target.value)} />
      </div>
      <h4>Parameters ($name in node fields)</h4>
      {Object.entries(params).map(([k, v]) => (
        <div className="gf-field row" key={k}>
          <label htmlFor={`wfp-${k}`}>${k}</label>
          <input
            id={`wfp-${k}`}
            defaultValue={String(v)}
            key={`${k}=${String(v)}`}
            onBlur={(e) => {
              const t = e.target.value.trim();
              const val = t === 'true' ? true : t === 'false' ? false : t !== '' && Number.isFinite(Number(t)) ? Number(t) : t;
              if (val !== v) session.editor.getState().setWorkflowParam(k, val);
            }}
          />
          <button onClick={() => session.editor.getState().setWorkflowParam(k, undefined)} title="remove" aria-label={`remove parameter ${k}`}>
            ×
          </button>
        </div>
      ))}
      <div className="gf-field row">
        <input placeholder="new parameter name" aria-label="new parameter name" value={newName} onChange={(e) => setNewName(e.target.value)} />
        <button
          disabled={!/^[A-Za-z_][A-Za-z0-9_]*$/.test(newName)}
          onClick={() => {
            session.editor.getState().setWorkflowParam(newName, 0);
            setNewName('');
          }}
        >
          add
        </button>
      </div>
      {tasks !== null && <p className="gf-muted">{tasks} tasks when run.</p>}
    </div>
  );
}

/** The selected node's output from the run on show, if that run produced one. */
function NodeResult({ id }: { id: string }) {
  const v = useRun((s) => s.result?.results[id]);
  const runNo = useRun((s) => s.result?.storeId ?? null);
  if (!v) return null;
  return (
    <section className="gf-inspector-result" data-testid={`inspector-result-${id}`}>
      <h4>
        Result{runNo !== null && <span className="gf-muted"> · run #{runNo}</span>} <ExpandResult id={id} v={v} />
      </h4>
      <Value node={id} v={v} />
    </section>
  );
}

export function Inspector() {
  const selected = useEditor((s) => (s.selectedNodes.length === 1 ? s.selectedNodes[0] : null));
  const node = useEditor((s) => s.graph.nodes.find((n) => n.id === selected));
  const spec = useEditor((s) => (node ? s.cat.get(node.op) : undefined));
  const table = useEditor((s) => s.graph.params);
  const errors = useRun((s) => (selected ? s.nodeErrors[selected] : undefined));
  if (!node) return <aside className="gf-inspector" data-testid="inspector"><WorkflowForm /></aside>;
  return (
    <aside className="gf-inspector" data-testid="inspector">
      <h3>
        {spec?.label ?? node.op} <span className="gf-muted">{node.id}</span>
      </h3>
      {spec ? <p className="gf-muted">{spec.doc}</p> : <p className="gf-field-error">Unknown node kind {node.op}.</p>}
      {spec?.params.map((p) => <ParamField key={p.name} nodeId={node.id} spec={p} value={node.params[p.name]} table={table} />)}
      {errors?.map((e, i) => (
        <p key={i} className="gf-field-error">
          {e}
        </p>
      ))}
      <NodeResult id={node.id} />
    </aside>
  );
}
