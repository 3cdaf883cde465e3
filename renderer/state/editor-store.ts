/**
 * The editor's store: the graph being drawn, selection, undo/redo (a snapshot per committed change,
 * so params come back too), clipboard, file name and unsaved-changes flag, and the last refusal
 * message. A plain zustand store of (set, get); React binds it in ui/hooks.ts.
 */
import { createStore } from 'zustand/vanilla';
import type { NodeKindSpec } from '../../common/catalog';
import type { ParamValue, WorkflowEdge } from '../../common/workflow';
import { EditorError } from '../logic/errors';
import * as G from '../logic/graph-model';
import { layeredLayout } from '../logic/layout';

export interface Notice {
  kind: 'error' | 'info';
  text: string;
  code?: string;
}

export interface EditorState {
  kinds: NodeKindSpec[];
  cat: G.Catalog;
  graph: G.Graph;
  selectedNodes: string[];
  selectedEdges: string[];
  past: G.Graph[];
  future: G.Graph[];
  clip: G.Clip | null;
  dirty: boolean;
  /** File path (Electron) or file name (browser) of the open document. */
  filePath: string | null;
  notice: Notice | null;
  dragStart: G.Graph | null;

  setCatalog(kinds: NodeKindSpec[]): void;
  load(graph: G.Graph, filePath: string | null): void;
  commit(next: G.Graph): void;
  addNode(op: string, position: { x: number; y: number }): string | null;
  connect(e: WorkflowEdge): EditorError | null;
  setParam(nodeId: string, name: string, value: ParamValue | undefined): void;
  setWorkflowParam(name: string, value: number | string | boolean | undefined): void;
  rename(name: string): void;
  beginDrag(): void;
  moveNodes(positions: Record<string, { x: number; y: number }>): void;
  endDrag(): void;
  select(nodes: string[], edges: string[]): void;
  deleteSelection(): void;
  copySelection(): void;
  pasteClip(): void;
  undo(): void;
  redo(): void;
  autoLayout(): void;
  markSaved(filePath: string | null): void;
  setNotice(n: Notice | null): void;
}

const HISTORY_LIMIT = 200;

export const createEditorStore = () =>
  createStore<EditorState>()((set, get) => ({
    kinds: [],
    cat: new Map(),
    graph: G.emptyGraph(),
    selectedNodes: [],
    selectedEdges: [],
    past: [],
    future: [],
    clip: null,
    dirty: false,
    filePath: null,
    notice: null,
    dragStart: null,

    setCatalog: (kinds) => set({ kinds, cat: G.catalogMap(kinds) }),
    load: (graph, filePath) => set({ graph, filePath, dirty: false, past: [], future: [], selectedNodes: [], selectedEdges: [], notice: null }),
    commit(next) {
      const { graph, past } = get();
      if (next === graph) return;
      set({ graph: next, past: [...past, graph].slice(-HISTORY_LIMIT), future: [], dirty: true });
    },
    addNode(op, position) {
      const spec = get().cat.get(op);
      if (!spec) return null;
      const { graph, id } = G.addNode(get().graph, spec, position);
      get().commit(graph);
      set({ selectedNodes: [id], selectedEdges: [] });
      return id;
    },
    connect(e) {
      const problem = G.connectionProblem(get().graph, get().cat, e);
      if (problem) {
        set({ notice: { kind: 'error', text: problem.message, code: problem.code } });
        return problem;
      }
      get().commit({ ...get().graph, edges: [...get().graph.edges, e] });
      set({ notice: null });
      return null;
    },
    setParam: (nodeId, name, value) => get().commit(G.setParam(get().graph, nodeId, name, value)),
    setWorkflowParam(name, value) {
      const params = { ...get().graph.params };
      if (value === undefined) delete params[name];
      else params[name] = value;
      get().commit({ ...get().graph, params });
    },
    rename: (name) => get().commit({ ...get().graph, name }),
    beginDrag: () => set({ dragStart: get().graph }),
    moveNodes(positions) {
      const g = get().graph;
      set({ graph: { ...g, nodes: g.nodes.map((n) => (positions[n.id] ? { ...n, position: positions[n.id] } : n)) } });
    },
    endDrag() {
      const start = get().dragStart;
      if (start && start !== get().graph) set({ past: [...get().past, start].slice(-HISTORY_LIMIT), future: [], dirty: true });
      set({ dragStart: null });
    },
    select: (selectedNodes, selectedEdges) => set({ selectedNodes, selectedEdges }),
    deleteSelection() {
      const { selectedNodes, selectedEdges, graph } = get();
      if (!selectedNodes.length && !selectedEdges.length) return;
      get().commit(G.removeItems(graph, new Set(selectedNodes), new Set(selectedEdges)));
      set({ selectedNodes: [], selectedEdges: [] });
    },
    copySelection() {
      const { selectedNodes, graph } = get();
      if (selectedNodes.length) set({ clip: G.copy(graph, new Set(selectedNodes)) });
    },
    pasteClip() {
      const clip = get().clip;
      if (!clip) return;
      const { graph, ids } = G.paste(get().graph, clip);
      get().commit(graph);
      set({ selectedNodes: ids, selectedEdges: [] });
    },
    undo() {
      const { past, future, graph } = get();
      if (!past.length) return;
      set({ graph: past[past.length - 1], past: past.slice(0, -1), future: [graph, ...future], dirty: true });
    },
    redo() {
      const { past, future, graph } = get();
      if (!future.length) return;
      set({ graph: future[0], future: future.slice(1), past: [...past, graph], dirty: true });
    },
    autoLayout() {
      const g = get().graph;
      const pos = layeredLayout(g.nodes, g.edges);
      get().commit({ ...g, nodes: g.nodes.map((n) => ({ ...n, position: pos[n.id] ?? n.position })) });
    },
    markSaved: (filePath) => set({ filePath, dirty: false }),
    setNotice: (notice) => set({ notice }),
  }));

export type EditorStore = ReturnType<typeof createEditorStore>;
