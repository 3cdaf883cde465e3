/** File, edit, run and view commands; the run's status line. */
import { useEffect, useMemo } from 'react';
import { errorMessages } from '../api/api-error';
import { hasPreload, type PreloadApi } from '../api/ipc-client';
import { toDoc } from '../logic/graph-model';
import { fileAccess } from './files';
import { useData, useEditor, useRun, useSession } from './hooks';
import { createShortcuts } from './shortcuts';
import { RunQueue } from './RunQueue';

const LOSE = 'You have unsaved changes. Discard them?';

export function useCommands() {
  const session = useSession();
  const files = useMemo(() => fileAccess(hasPreload() ? (window.gpuflow as PreloadApi) : null), []);
  return useMemo(() => {
    const ed = () => session.editor.getState();
    const okToDiscard = () => !ed().dirty || confirm(LOSE);
    const save = async (asNew: boolean) => {
      const g = ed().graph;
      const name = await files.save(JSON.stringify(toDoc(g), null, 2) + '\n', asNew ? null : ed().filePath, `${g.name || 'workflow'}.json`);
      if (name) ed().markSaved(name);
    };
    return {
      newDoc() {
        if (okToDiscard()) session.loadDoc({ format: 'gpuflow.workflow/1', name: 'untitled', params: {}, nodes: [], edges: [] }, null);
      },
      async open() {
        if (!okToDiscard()) return;
        const f = await files.open();
        if (!f) return;
        try {
          session.loadDoc(JSON.parse(f.text), f.path);
        } catch (e) {
          ed().setNotice({ kind: 'error', text: errorMessages(e).join('; ') });
        }
      },
      save: () => save(false),
      saveAs: () => save(true),
      openExample(name: string) {
        const ex = session.data.getState().examples.find((x) => x.name === name);
        if (ex && okToDiscard()) session.loadDoc(ex.doc, null);
      },
      run: () => void session.startRun(),
      /** Runs the one selected node and what it needs upstream; nothing when not exactly one is selected. */
      runSelected() {
        const sel = ed().selectedNodes;
        if (sel.length === 1) void session.runNode(sel[0]);
      },
      cancel: () => void session.cancel(),
    };
  }, [session, files]);
}

export function Toolbar() {
  const session = useSession();
  const cmd = useCommands();
  const examples = useData((s) => s.examples);
  const view = useData((s) => s.view);
  const connection = useData((s) => s.connection);
  const loadError = useData((s) => s.loadError);
  const dirty = useEditor((s) => s.dirty);
  const name = useEditor((s) => s.graph.name);
  const filePath = useEditor((s) => s.filePath);
  const canUndo = useEditor((s) => s.past.length > 0);
  const canRedo = useEditor((s) => s.future.length > 0);
  const status = useRun((s) => s.status);
  const done = useRun((s) => s.done);
  const total = useRun((s) => s.total);
  const general = useRun((s) => s.generalErrors);
  const running = status === 'running' || status === 'starting';
  const oneSelected = useEditor((s) => s.selectedNodes.length === 1);
  const reusedTasks = useRun((s) => s.reusedTasks);

  useEffect(() => {
    const ed = () => session.editor.getState();
    const sc = createShortcuts(window, {
      undo: () => ed().undo(),
      redo: () => ed().redo(),
      copy: () => ed().copySelection(),
      paste: () => ed().pasteClip(),
      remove: () => ed().deleteSelection(),
      selectAll: () => ed().select(ed().graph.nodes.map((n) => n.id), []),
      save: () => void cmd.save(),
      open: () => void cmd.open(),
      run: cmd.run,
      runSelected: cmd.runSelected,
      layout: () => ed().autoLayout(),
      group: () => void ed().groupSelection(),
      ungroup: () => ed().ungroupSelection(),
    });
    const beforeUnload = (e: BeforeUnloadEvent) => {
      if (session.editor.getState().dirty) e.preventDefault();
    };
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      sc.destroy();
      window.removeEventListener('beforeunload', beforeUnload);
    };
  }, [session, cmd]);

  useEffect(() => {
    document.title = `${dirty ? '• ' : ''}${name} — gpuflow`;
  }, [dirty, name]);

  const ed = session.editor.getState;
  return (
    <header className="gf-toolbar">
      <strong className="gf-brand">gpuflow</strong>
      <button onClick={cmd.newDoc}>New</button>
      <button onClick={() => void cmd.open()}>Open…</button>
      <button onClick={() => void cmd.save()} data-testid="save">
        Save
      </button>
      <button onClick={() => void cmd.saveAs()}>Save as…</button>
      <select aria-label="examples" value="" onChange={(e) => cmd.openExample(e.target.value)} data-testid="examples">
        <option value="">Examples…</option>
        {examples.map((x) => (
          <option key={x.name} value={x.name}>
            {x.doc.name ?? x.name}
          </option>
        ))}
      </select>
      <span className="gf-sep" />
      <button disabled={!canUndo} onClick={() => ed().undo()} title="Ctrl+Z">
        Undo
      </button>
      <button disabled={!canRedo} onClick={() => ed().redo()} title="Ctrl+Shift+Z">
        Redo
      </button>
      <button onClick={() => ed().autoLayout()} title="Ctrl+L">
        Layout
      </button>
      <span className="gf-sep" />
      <button className="gf-primary" onClick={cmd.run} data-testid="run" title={running ? 'Queue a run of the workflow (Ctrl+Enter)' : 'Run the workflow (Ctrl+Enter)'}>
        Run
      </button>
      <button disabled={!oneSelected} onClick={cmd.runSelected} data-testid="run-selected" title="Run the selected node and what it needs upstream, reusing unchanged results (Ctrl+Shift+Enter)">
        Run selected
      </button>
      <button disabled={!running} onClick={cmd.cancel} data-testid="cancel">
        Cancel
      </button>
      <span className="gf-status" data-testid="run-status" data-status={status}>
        {status}
        {total > 0 && ` ${done}/${total}`}
        {reusedTasks > 0 && (
          <span className="gf-reused" data-testid="run-reused" data-tasks={reusedTasks}>
            {' '}
            ({reusedTasks} reused)
          </span>
        )}
      </span>
      <RunQueue />
      <span className="gf-sep" />
      {(['editor', 'history', 'benchmarks'] as const).map((v) => (
        <button key={v} className={view === v ? 'gf-tab active' : 'gf-tab'} onClick={() => session.data.getState().set({ view: v })} data-testid={`view-${v}`}>
          {v}
        </button>
      ))}
      <span className="gf-file" title={filePath ?? ''}>
        {filePath ?? 'unsaved'}
        {dirty ? ' •' : ''}
      </span>
      {connection === 'error' && <span className="gf-bad">server: {loadError}</span>}
      {general.length > 0 && (
        <div className="gf-general-errors" role="alert" data-testid="general-errors">
          {general.map((g, i) => (
            <div key={i}>{g}</div>
          ))}
        </div>
      )}
    </header>
  );
}
