/**
 * The graph canvas (@xyflow/react, controlled): nodes and edges derive from the editor store, and
 * every change goes back through its actions, so undo/redo sees all of them. Drops from the
 * palette add nodes; a refused connection shows its reason in a banner.
 */
import { Background, Controls, MiniMap, ReactFlow, useReactFlow, type Connection, type Edge, type Node, type NodeChange, type EdgeChange } from '@xyflow/react';
import { useCallback, useMemo } from 'react';
import { edgeId } from '../logic/graph-model';
import { FlowNode, PORT_COLORS } from './FlowNode';
import { useEditor, useSession } from './hooks';

export const PALETTE_MIME = 'application/x-gpuflow-op';
const nodeTypes = { gpuflow: FlowNode };

export function GraphEditor() {
  const session = useSession();
  const graph = useEditor((s) => s.graph);
  const cat = useEditor((s) => s.cat);
  const selectedNodes = useEditor((s) => s.selectedNodes);
  const selectedEdges = useEditor((s) => s.selectedEdges);
  const notice = useEditor((s) => s.notice);
  const flow = useReactFlow();

  const nodes: Node[] = useMemo(() => {
    const sel = new Set(selectedNodes);
    return graph.nodes.map((n) => ({ id: n.id, type: 'gpuflow', position: n.position ?? { x: 0, y: 0 }, data: {}, selected: sel.has(n.id) }));
  }, [graph.nodes, selectedNodes]);

  const edges: Edge[] = useMemo(() => {
    const sel = new Set(selectedEdges);
    return graph.edges.map((e) => {
      const src = graph.nodes.find((n) => n.id === e.source);
      const type = src ? cat.get(src.op)?.outputs.find((p) => p.name === e.sourcePort)?.type : undefined;
      const id = edgeId(e);
      return { id, source: e.source, sourceHandle: e.sourcePort, target: e.target, targetHandle: e.targetPort, selected: sel.has(id), style: { stroke: PORT_COLORS[type ?? ''] ?? '#888', strokeWidth: 2 } };
    });
  }, [graph, cat, selectedEdges]);

  const onNodesChange = useCallback(
    (changes: NodeChange[]) => {
      const st = session.editor.getState();
      const moved: Record<string, { x: number; y: number }> = {};
      let ended = false;
      const sel = new Set(st.selectedNodes);
      let selChanged = false;
      for (const c of changes) {
        if (c.type === 'select') {
          selChanged = true;
          if (c.selected) sel.add(c.id);
          else sel.delete(c.id);
        }
        if (c.type !== 'position') continue;
        if (c.dragging && st.dragStart === null) st.beginDrag();
        if (c.position) moved[c.id] = c.position;
        if (c.dragging === false) ended = true;
      }
      if (Object.keys(moved).length) st.moveNodes(moved);
      if (ended) session.editor.getState().endDrag();
      if (selChanged) session.editor.getState().select([...sel], session.editor.getState().selectedEdges);
    },
    [session],
  );

  // Controlled mode: selection arrives as 'select' changes and lives in the editor store.
  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      const st = session.editor.getState();
      const sel = new Set(st.selectedEdges);
      let changed = false;
      for (const c of changes) {
        if (c.type !== 'select') continue;
        changed = true;
        if (c.selected) sel.add(c.id);
        else sel.delete(c.id);
      }
      if (changed) st.select(st.selectedNodes, [...sel]);
    },
    [session],
  );

  const onConnect = useCallback(
    (c: Connection) => {
      session.editor.getState().connect({ source: c.source, sourcePort: c.sourceHandle ?? '', target: c.target, targetPort: c.targetHandle ?? '' });
    },
    [session],
  );

  const onDrop = useCallback(
    (ev: React.DragEvent) => {
      const op = ev.dataTransfer.getData(PALETTE_MIME);
      if (!op) return;
      ev.preventDefault();
      const pos = flow.screenToFlowPosition({ x: ev.clientX, y: ev.clientY });
      session.editor.getState().addNode(op, { x: Math.round(pos.x), y: Math.round(pos.y) });
    },
    [flow, session],
  );

  return (
    <div className="gf-canvas" data-testid="graph-canvas" onDrop={onDrop} onDragOver={(e) => (e.preventDefault(), (e.dataTransfer.dropEffect = 'copy'))}>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        deleteKeyCode={null}
        multiSelectionKeyCode={['Shift', 'Meta', 'Control']}
        selectionKeyCode="Shift"
        fitView={false}
        minZoom={0.2}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={20} />
        <MiniMap pannable zoomable nodeColor={(n) => (selectedNodes.includes(n.id) ? '#2f6fdf' : '#b8c0cc')} />
        <Controls />
      </ReactFlow>
      {notice && (
        <div className={`gf-notice ${notice.kind}`} role="alert" data-testid="notice" data-code={notice.code ?? ''}>
          {notice.text}
          <button onClick={() => session.editor.getState().setNotice(null)} aria-label="dismiss">
            ×
          </button>
        </div>
      )}
    </div>
  );
}
