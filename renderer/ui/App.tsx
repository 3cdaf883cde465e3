/**
 * The window: toolbar; the main area (editor: palette | canvas | inspector + results; or the
 * history / benchmarks view at full width; a wide result, ui/WideResult.tsx, over the editor); in the editor, above the task stream | progress |
 * workers strip (the dock belongs to the run on the canvas: History and Benchmarks have their
 * own, so it is not shown there).
 * Panels are resizable and collapsible with remembered sizes (ui/layout.tsx).
 */
import { ReactFlowProvider } from '@xyflow/react';
import { lazy, Suspense } from 'react';
import { GeneralErrors } from './GeneralErrors';
import { GraphEditor } from './GraphEditor';
import { useData } from './hooks';
import { Inspector } from './Inspector';
import { FoldingPanel, Handle, Panel, PanelGroup, PanelToggles } from './layout';
import { Palette } from './Palette';
import { ProgressPanel } from './ProgressPanel';
import { ResultsPanel } from './ResultsPanel';
import { TaskStream } from './TaskStream';
import { ThemeContext, useTheme } from './theme-hook';
import { Toolbar } from './Toolbar';
import { WideResult } from './WideResult';
import { WorkersPanel } from './WorkersPanel';

// History (with Compare) and Benchmarks load when first opened: the editor paints first.
const HistoryView = lazy(() => import('./HistoryView').then((m) => ({ default: m.HistoryView })));
const BenchView = lazy(() => import('./BenchView').then((m) => ({ default: m.BenchView })));

function Editor() {
  return (
    <PanelGroup direction="horizontal" autoSaveId="gpuflow.layout.editor">
      <FoldingPanel name="palette" order={1} defaultSize={15} minSize={9}>
        <Palette />
      </FoldingPanel>
      <Handle direction="horizontal" />
      <Panel id="canvas" order={2} minSize={30} className="gf-center">
        <GraphEditor />
      </Panel>
      <Handle direction="horizontal" />
      <FoldingPanel name="side" order={3} defaultSize={24} minSize={14}>
        <div className="gf-side">
          <Inspector />
          <ResultsPanel />
        </div>
      </FoldingPanel>
    </PanelGroup>
  );
}

export function App() {
  const view = useData((s) => s.view);
  const theme = useTheme();
  return (
    <ThemeContext.Provider value={theme}>
      <ReactFlowProvider>
        <PanelToggles>
          <div className="gf-app" data-view={view}>
            <Toolbar />
            <GeneralErrors />
            <PanelGroup direction="vertical" autoSaveId="gpuflow.layout.window" className="gf-body">
              <Panel id="main" order={1} minSize={30}>
                {view === 'editor' && (
                  <div className="gf-main">
                    <Editor />
                    <WideResult />
                  </div>
                )}
                <Suspense fallback={<p className="gf-muted gf-view">Loading…</p>}>
                  {view === 'history' && <HistoryView />}
                  {view === 'benchmarks' && <BenchView />}
                </Suspense>
              </Panel>
              {view === 'editor' && <Handle direction="vertical" />}
              {view === 'editor' && (
              <FoldingPanel name="bottom" order={2} defaultSize={32} minSize={14}>
                <PanelGroup direction="horizontal" autoSaveId="gpuflow.layout.bottom">
                  <Panel id="stream" order={1} minSize={30} defaultSize={56}>
                    <TaskStream />
                  </Panel>
                  <Handle direction="horizontal" />
                  <Panel id="progress" order={2} minSize={10} defaultSize={20} collapsible>
                    <ProgressPanel />
                  </Panel>
                  <Handle direction="horizontal" />
                  <Panel id="workers" order={3} minSize={12} defaultSize={24} collapsible>
                    <WorkersPanel />
                  </Panel>
                </PanelGroup>
              </FoldingPanel>
              )}
            </PanelGroup>
          </div>
        </PanelToggles>
      </ReactFlowProvider>
    </ThemeContext.Provider>
  );
}
