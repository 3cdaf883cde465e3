/**
 * The graph canvas (@xyflow/react, controlled): nodes and edges derive from the editor store, and
 * every change goes back through its actions, so undo/redo sees all of them. Drops from the
 * palette add nodes; a refused connection shows its reason in a banner. Groups are xyflow parent
 * nodes (their members' positions are made relative to the frame here, absolute in the store).
 *
 * Measured sizes: xyflow reports each node's size as a 'dimensions' change. In controlled mode a
 * node passed back without `measured` counts as unmeasured, so the MiniMap (which skips nodes
 * without sizes) drew nothing. The sizes are kept in the editor store and passed back; since
 * xyflow then keeps a node's handle positions until its size changes, FlowNode asks for a
 * re-measure when its ports change (useUpdateNodeInternals).
 */
import { Background, Controls, MiniMap, Panel, ReactFlow, useReactFlow, type Connection, type Edge, type Node, type NodeChange, type EdgeChange } from '@xyflow/react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { edgeId } from '../logic/graph-model';
import { miniSize } from '../logic/layout';
import { flowGroupId, groupIdOfFlow, groupIndex, groupsOf, type Size } from '../logic/groups';
import { FlowNode, PORT_COLORS } from './FlowNode';
import { GroupNode } from './GroupNode';
import { useEditor, useSession } from './hooks';
import { cssToken } from '../logic/theme';
import { useThemeContext } from './theme-hook';

export const PALETTE_MIME = 'application/x-gpuflow-op';
const nodeTypes = { gpuflow: FlowNode, gfgroup: GroupNode };

export function GraphEditor() {
  const session = useSession();
  const graph = useEditor((s) => s.graph);
  const cat = useEditor((s) => s.cat);
  const selectedNodes = useEditor((s) => s.selectedNodes);
  const selectedEdges = useEditor((s) => s.selectedEdges);
  const selectedGroups = useEditor((s) => s.selectedGroups);
  const sizes = useEditor((s) => s.sizes);
  const notice = useEditor((s) => s.notice);
  const flow = useReactFlow();
  const { theme } = useThemeContext();
  const loadSeq = useEditor((s) => s.loadSeq);
  const fitSeq = useEditor((s) => s.fitSeq);
  // A newly loaded document, or one just laid out, is fitted into view (after xyflow has measured
  // its nodes), and again when its panel resizes, until the user pans or zooms.
  const autoFit = useRef(false);
  const wrap = useRef<HTMLDivElement>(null);
  const [canvasW, setCanvasW] = useState(800);
  // While something is dragged from the palette the minimap lets it through to the canvas.
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    if (loadSeq === 0 && fitSeq === 0) return;
    autoFit.current = true;
    const t = setTimeout(() => void flow.fitView({ padding: 0.15, maxZoom: 1 }), 60);
    return () => clearTimeout(t);
  }, [loadSeq, fitSeq, flow]);
  useEffect(() => {
    const el = wrap.current;
    if (!el) return;
    let t: ReturnType<typeof setTimeout> | undefined;
    const ro = new ResizeObserver(() => {
      setCanvasW(el.clientWidth);
      if (!autoFit.current) return;
      clearTimeout(t);
      t = setTimeout(() => void flow.fitView({ padding: 0.15, maxZoom: 1 }), 60);
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      clearTimeout(t);
    };
  }, [flow]);
  // A problem clicked in the list: its node is centred (it may be off-screen in a large graph) and,
  // once the inspector shows that node, the field the problem names takes the focus.
  const focus = useEditor((s) => s.focus);
  useEffect(() => {
    if (!focus) return;
    autoFit.current = false;
    void flow.fitView({ nodes: [{ id: focus.node }], padding: 0.6, maxZoom: 1, duration: 200 });
    const t = setTimeout(() => {
      const field = focus.field ? document.getElementById(`param-${focus.node}-${focus.field}`) : null;
      field?.focus();
    }, 50);
    return () => clearTimeout(t);
  }, [focus, flow]);
  // The minimap paints SVG attributes, which take colours, not CSS variables: read the tokens per theme.
  const mini = useMemo(
    () => ({ node: cssToken('--text-faint', '#8b95a1'), selected: cssToken('--accent', '#2f6fdf'), mask: theme === 'dark' ? 'rgba(0,0,0,0.55)' : 'rgba(240,242,245,0.7)' }),
    [theme],
  );

  const nodes: Node[] = useMemo(() => {
    const sel = new Set(selectedNodes);
    const selG = new Set(selectedGroups);
    const of = groupIndex(graph);
    // Parents first: xyflow needs a parent node before its children.
    const frames: Node[] = groupsOf(graph).map((g) => ({
      id: flowGroupId(g.id),
      type: 'gfgroup',
      position: g.position,
      width: g.size.width,
      height: g.size.height,
      data: { groupId: g.id },
      selected: selG.has(g.id),
    }));
    const members: Node[] = graph.nodes.map((n) => {
      const at = n.position ?? { x: 0, y: 0 };
      const g = of.get(n.id);
      return {
        id: n.id,
        type: 'gpuflow',
        position: g ? { x: at.x - g.position.x, y: at.y - g.position.y } : at,
        ...(g ? { parentId: flowGroupId(g.id) } : {}),
        data: {},
        selected: sel.has(n.id),
        measured: sizes[n.id],
      };
    });
    return [...frames, ...members];
  }, [graph, selectedNodes, selectedGroups, sizes]);

  const edges: Edge[] = useMemo(() => {
    const sel = new Set(selectedEdges);
    return graph.edges.map((e) => {
      const src = graph.nodes.find((n) => n.id === e.source);
      const type = src ? cat.get(src.op)?.outputs.find((p) => p.name === e.sourcePort)?.type : undefined;
      const id = edgeId(e);
      return { id, source: e.source, sourceHandle: e.sourcePort, target: e.target, targetHandle: e.targetPort, selected: sel.has(id), style: { stroke: PORT_COLORS[type ?? ''] ?? 'var(--text-faint)', strokeWidth: 2 } };
    });
  }, [graph, cat, selectedEdges]);

  const onNodesChange = useCallback(
    (changes: NodeChange[]) => {
      const st = session.editor.getState();
      const of = groupIndex(st.graph);
      const moved: Record<string, { x: number; y: number }> = {};
      const movedGroups: Record<string, { x: number; y: number }> = {};
      const measured: Record<string, Size> = {};
      let ended = false;
      const sel = new Set(st.selectedNodes);
      const selG = new Set(st.selectedGroups);
      let selChanged = false;
      for (const c of changes) {
        const gid = c.type === 'add' ? null : groupIdOfFlow(c.id);
        if (c.type === 'dimensions' && c.dimensions && gid === null) {
          const old = st.sizes[c.id];
          if (old?.width !== c.dimensions.width || old?.height !== c.dimensions.height) measured[c.id] = { width: c.dimensions.width, height: c.dimensions.height };
        }
        if (c.type === 'select') {
          selChanged = true;
          const set = gid === null ? sel : selG;
          const key = gid ?? c.id;
          if (c.selected) set.add(key);
          else set.delete(key);
        }
        if (c.type !== 'position') continue;
        if (c.dragging && st.dragStart === null) st.beginDrag();
        if (c.position && gid !== null) movedGroups[gid] = c.position;
        else if (c.position) {
          // A member's position arrives relative to its frame; the store keeps it absolute.
          const g = of.get(c.id);
          moved[c.id] = g ? { x: c.position.x + g.position.x, y: c.position.y + g.position.y } : c.position;
        }
        if (c.dragging === false) ended = true;
      }
      if (Object.keys(measured).length) st.setSizes(measured);
      if (Object.keys(moved).length || Object.keys(movedGroups).length) st.moveNodes(moved, movedGroups);
      if (ended) session.editor.getState().endDrag();
      if (selChanged) {
        session.editor.getState().select([...sel], session.editor.getState().selectedEdges);
        session.editor.getState().selectGroups([...selG]);
      }
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
    <div
      className={`gf-canvas${dragging ? ' gf-dragging' : ''}`}
      ref={wrap}
      data-testid="graph-canvas"
      onDrop={(e) => {
        setDragging(false);
        onDrop(e);
      }}
      onDragEnter={(e) => e.dataTransfer.types.includes(PALETTE_MIME) && setDragging(true)}
      onDragLeave={(e) => e.relatedTarget instanceof globalThis.Node && wrap.current?.contains(e.relatedTarget) ? undefined : setDragging(false)}
      onDragOver={(e) => (e.preventDefault(), (e.dataTransfer.dropEffect = 'copy'))}
    >
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
        colorMode={theme}
        onMoveStart={(e) => {
          // Only the user's own pan or zoom carries an event; fitView's does not.
          if (e) autoFit.current = false;
        }}
      >
        <Background gap={20} />
        <MiniMap
          style={miniSize(canvasW)}
          pannable
          zoomable
          maskColor={mini.mask}
          nodeBorderRadius={4}
          nodeColor={(n) => (n.type === 'gfgroup' ? 'rgba(91, 147, 240, 0.15)' : selectedNodes.includes(n.id) ? mini.selected : mini.node)}
        />
        <Controls />
        <Panel position="top-right" className="gf-group-bar">
          <button data-testid="group-selection" disabled={!selectedNodes.length} onClick={() => session.editor.getState().groupSelection()} title="Group the selected nodes (Ctrl+G)">
            Group
          </button>
          <button
            data-testid="ungroup-selection"
            disabled={!selectedGroups.length && !selectedNodes.some((n) => graph.groups?.some((g) => g.nodes.includes(n)))}
            onClick={() => session.editor.getState().ungroupSelection()}
            title="Remove the selected frames; the nodes stay (Ctrl+Shift+G)"
          >
            Ungroup
          </button>
        </Panel>
      </ReactFlow>
      {graph.nodes.length === 0 && (
        <div className="gf-empty-hint" data-testid="empty-canvas-hint">
          <strong>An empty workflow.</strong>
          <span>Drag a node from the palette on the left (or double-click it), or open one from Examples… in the toolbar.</span>
          <span className="gf-muted">Connect an output port to an input port, then Run (Ctrl+Enter).</span>
        </div>
      )}
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
