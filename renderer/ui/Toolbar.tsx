/** File, edit, run and view commands; the run's status line. */
import { useEffect, useMemo, useRef } from 'react';
import { errorMessages } from '../api/api-error';
import { hasPreload, type PreloadApi } from '../api/ipc-client';
import { toDoc } from '../logic/graph-model';
import { fileAccess } from './files';
import { useData, useEditor, useRun, useSession } from './hooks';
import { RunStatus } from './RunStatus';
import { createShortcuts } from './shortcuts';
import { blockedReason } from '../logic/problems';
import { usePanelToggles, type PanelName } from './layout';
import { RunQueue } from './RunQueue';
import { useThemeContext } from './theme-hook';
import { nextThemeChoice } from '../logic/theme';
import { ClusterSelector } from './ClusterSelector';

const LOSE = 'You have unsaved changes. Discard them?';
const VIEW_LABEL = { editor: 'Editor', history: 'History', benchmarks: 'Benchmarks' } as const;
const PANELS: Array<[PanelName, string]> = [
  ['palette', 'node palette'],
  ['side', 'inspector'],
  ['bottom', 'task stream and workers'],
];
const PANEL_ICON: Record<PanelName, string> = { palette: '◧', side: '◨', bottom: '⬓' };

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
      // The keyboard path obeys the same rule as the disabled button: no run while problems are listed.
      run: () => void (ed().problems.length ? undefined : session.startRun()),
      /** Runs the one selected node and what it needs upstream; nothing when not exactly one is selected. */
      runSelected() {
        const sel = ed().selectedNodes;
        if (sel.length === 1 && !ed().problems.length) void session.runNode(sel[0]);
      },
      cancel: () => void session.cancel(),
    };
  }, [session, files]);
}

/** New / Open / Save / Save as in one menu (a <details> disclosure: keyboard and screen reader friendly, no library). */
function FileMenu({ cmd }: { cmd: ReturnType<typeof useCommands> }) {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const close = (e: MouseEvent) => {
      if (ref.current?.open && !ref.current.contains(e.target as Node)) ref.current.open = false;
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, []);
  const item = (label: string, fn: () => void, testid?: string, keys?: string) => (
    <button
      role="menuitem"
      data-testid={testid}
      onClick={() => {
        if (ref.current) ref.current.open = false;
        fn();
      }}
    >
      <span>{label}</span>
      {keys && <kbd>{keys}</kbd>}
    </button>
  );
  return (
    <details className="gf-menu" ref={ref} data-testid="file-menu">
      <summary>File</summary>
      <div className="gf-menu-list" role="menu">
        {item('New', cmd.newDoc, 'new')}
        {item('Open…', () => void cmd.open(), 'open', 'Ctrl+O')}
        {item('Save', () => void cmd.save(), 'save', 'Ctrl+S')}
        {item('Save as…', () => void cmd.saveAs(), 'save-as')}
      </div>
    </details>
  );
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
  const problems = useEditor((s) => s.problems);
  const blocked = problems.length > 0;
  const whyBlocked = blockedReason(problems);
  const theme = useThemeContext();
  const panels = usePanelToggles();
  const running = status === 'running' || status === 'starting';
  const oneSelected = useEditor((s) => s.selectedNodes.length === 1);

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
      <div className="gf-tool-group">
        <FileMenu cmd={cmd} />
        <select aria-label="examples" className="gf-examples" value="" onChange={(e) => cmd.openExample(e.target.value)} data-testid="examples">
          <option value="">Examples…</option>
          {examples.map((x) => (
            <option key={x.file} value={x.name}>
              {x.doc.name ?? x.name}
            </option>
          ))}
        </select>
      </div>
      <span className="gf-sep" />
      <div className="gf-tool-group">
      <button className="gf-icon-btn" disabled={!canUndo} onClick={() => ed().undo()} title="Undo (Ctrl+Z)" aria-label="Undo">
        ↶
      </button>
      <button className="gf-icon-btn" disabled={!canRedo} onClick={() => ed().redo()} title="Redo (Ctrl+Shift+Z)" aria-label="Redo">
        ↷
      </button>
      <button onClick={() => ed().autoLayout()} title="Arrange the nodes left to right (Ctrl+L)">
        Layout
      </button>
      </div>
      <span className="gf-sep" />
      <div className="gf-tool-group">
      <button
        className="gf-primary"
        onClick={cmd.run}
        disabled={blocked}
        data-testid="run"
        title={whyBlocked ?? (running ? 'Queue a run of the workflow (Ctrl+Enter)' : 'Run the workflow (Ctrl+Enter)')}
      >
        Run
      </button>
      <button disabled={!oneSelected || blocked} onClick={cmd.runSelected} data-testid="run-selected" title={whyBlocked ?? 'Run the selected node and what it needs upstream, reusing unchanged results (Ctrl+Shift+Enter)'}>
        Run node
      </button>
      <button disabled={!running} onClick={cmd.cancel} data-testid="cancel">
        Cancel
      </button>
      <RunStatus />
      </div>
      <RunQueue />
      <ClusterSelector />
      <span className="gf-sep" />
      <nav className="gf-tabs" aria-label="views">
        {(['editor', 'history', 'benchmarks'] as const).map((v) => (
          <button key={v} className={view === v ? 'gf-tab active' : 'gf-tab'} onClick={() => session.data.getState().set({ view: v })} data-testid={`view-${v}`}>
            {VIEW_LABEL[v]}
          </button>
        ))}
      </nav>
      <span className="gf-file" title={filePath ?? ''}>
        {filePath ?? 'unsaved'}
        {dirty ? ' •' : ''}
      </span>
      {connection === 'error' && (
        <span className="gf-bad gf-ellipsis" title={loadError ?? ''}>
          server: {loadError}
        </span>
      )}
      <div className="gf-tool-group gf-right">
        {PANELS.map(([p, label]) => (
          <button
            key={p}
            className={`gf-icon-btn${panels.collapsed(p) ? '' : ' on'}`}
            onClick={() => panels.toggle(p)}
            title={`${panels.collapsed(p) ? 'Show' : 'Hide'} the ${label}`}
            aria-label={`${label} panel`}
            aria-pressed={!panels.collapsed(p)}
            data-testid={`toggle-${p}`}
          >
            {PANEL_ICON[p]}
          </button>
        ))}
        <button className="gf-icon-btn" onClick={() => theme.setChoice(nextThemeChoice(theme.choice))} title={`Theme: ${theme.choice} (click to change)`} aria-label={`theme: ${theme.choice}`} data-testid="theme" data-theme={theme.theme}>
          {theme.choice === 'system' ? '◐' : theme.choice === 'light' ? '☀' : '☾'}
        </button>
      </div>
    </header>
  );
}
