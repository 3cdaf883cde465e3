/** The window: toolbar; palette | canvas (or history / benchmarks) | inspector + results; task stream and workers below. */
import { ReactFlowProvider } from '@xyflow/react';
import { BenchView } from './BenchView';
import { GraphEditor } from './GraphEditor';
import { HistoryView } from './HistoryView';
import { useData } from './hooks';
import { Inspector } from './Inspector';
import { Palette } from './Palette';
import { ResultsPanel } from './ResultsPanel';
import { TaskStream } from './TaskStream';
import { Toolbar } from './Toolbar';
import { WorkersPanel } from './WorkersPanel';

export function App() {
  const view = useData((s) => s.view);
  return (
    <ReactFlowProvider>
      <div className="gf-app">
        <Toolbar />
        <div className="gf-main">
          {view === 'editor' && <Palette />}
          <main className="gf-center">
            {view === 'editor' && <GraphEditor />}
            {view === 'history' && <HistoryView />}
            {view === 'benchmarks' && <BenchView />}
          </main>
          <div className="gf-side">
            <Inspector />
            <ResultsPanel />
          </div>
        </div>
        <div className="gf-bottom">
          <TaskStream />
          <WorkersPanel />
        </div>
      </div>
    </ReactFlowProvider>
  );
}
