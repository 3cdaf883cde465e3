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
import * as Groups from '../logic/groups';
import { layeredLayout } from '../logic/layout';
import { draftProblems, graphProblems, mergeProblems, type Problem } from '../logic/problems';

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
  /** Selected group frames (ids as in the graph's groups). */
  selectedGroups: string[];
  /** Node sizes the canvas measured: group frames fit around them and the minimap draws them. */
  sizes: Record<string, Groups.Size>;
  past: G.Graph[];
  future: G.Graph[];
  clip: G.Clip | null;
  dirty: boolean;
  /** File path (Electron) or file name (browser) of the open document. */
  filePath: string | null;
  notice: Notice | null;
  dragStart: G.Graph | null;
  /** Fields whose text does not parse, "node/param" → the text typed: Run waits until they are fixed. */
  invalid: Record<string, { text: string; error: string }>;
  /** Bumped by each load: the canvas fits the new document into view. */
  loadSeq: number;
  /** What stops the graph from running, by the shared graph rules and the unparsed fields; kept in step with graph, catalog and drafts. */
  problems: Problem[];
  /** A problem clicked: the canvas centres its node and the inspector focuses its field (seq: each click counts). */
  focus: { node: string; field: string | null; seq: number } | null;
  /** Bumped when the view should fit the graph again without a new document (auto-layout). */
  fitSeq: number;

  setCatalog(kinds: NodeKindSpec[]): void;
  load(graph: G.Graph, filePath: string | null): void;
  commit(next: G.Graph): void;
  addNode(op: string, position: { x: number; y: number }): string | null;
  connect(e: WorkflowEdge): EditorError | null;
  setParam(nodeId: string, name: string, value: ParamValue | undefined): void;
  setWorkflowParam(name: string, value: number | string | boolean | undefined): void;
  rename(name: string): void;
  beginDrag(): void;
  /** Live drag: node positions (absolute) and group corners; history is written by endDrag. */
  moveNodes(positions: Record<string, { x: number; y: number }>, groupPositions?: Record<string, { x: number; y: number }>): void;
  endDrag(): void;
  select(nodes: string[], edges: string[]): void;
  selectGroups(groups: string[]): void;
  setSizes(sizes: Record<string, Groups.Size>): void;
  /** Groups the selected nodes; returns the new group's id, or null when nothing is selected. */
  groupSelection(label?: string): string | null;
  /** Removes the selected frames, and the frames of the selected nodes; the nodes stay. */
  ungroupSelection(): void;
  renameGroup(groupId: string, label: string): void;
  deleteSelection(): void;
  copySelection(): void;
  pasteClip(): void;
  undo(): void;
  redo(): void;
  autoLayout(): void;
  markSaved(filePath: string | null): void;
  setNotice(n: Notice | null): void;
  setInvalid(node: string, param: string, draft: { text: string; error: string } | null): void;
  focusProblem(node: string, field: string | null): void;
}

export const fieldKey = (node: string, param: string) => `${node}/${param}`;

const HISTORY_LIMIT = 200;

export const createEditorStore = () => {
  const store = createStore<EditorState>()((set, get) => ({
    kinds: [],
    cat: new Map(),
    graph: G.emptyGraph(),
    selectedNodes: [],
    selectedEdges: [],
    selectedGroups: [],
    sizes: {},
    past: [],
    future: [],
    clip: null,
    dirty: false,
    filePath: null,
    notice: null,
    dragStart: null,
    invalid: {},
    loadSeq: 0,
    problems: [],
    focus: null,
    fitSeq: 0,

    setCatalog: (kinds) => set({ kinds, cat: G.catalogMap(kinds) }),
    load: (graph, filePath) => set({ graph, filePath, dirty: false, past: [], future: [], selectedNodes: [], selectedEdges: [], selectedGroups: [], notice: null, invalid: {}, loadSeq: get().loadSeq + 1 }),
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
    moveNodes(positions, groupPositions = {}) {
      const g = Groups.moveGroups(get().graph, groupPositions);
      set({ graph: { ...g, nodes: g.nodes.map((n) => (positions[n.id] ? { ...n, position: positions[n.id] } : n)) } });
    },
    endDrag() {
      const start = get().dragStart;
      if (start && start !== get().graph) {
        // Members dragged within (or out of) their frame: the frame follows them.
        const before = new Map(start.nodes.map((n) => [n.id, n.position]));
        const moved = get().graph.nodes.filter((n) => n.position !== before.get(n.id)).map((n) => n.id);
        set({ graph: Groups.refitGroupsOf(get().graph, moved, get().sizes), past: [...get().past, start].slice(-HISTORY_LIMIT), future: [], dirty: true });
      }
      set({ dragStart: null });
    },
    select: (selectedNodes, selectedEdges) => set({ selectedNodes, selectedEdges }),
    selectGroups: (selectedGroups) => set({ selectedGroups }),
    setSizes(measured) {
      const sizes = { ...get().sizes, ...measured };
      // A member that grew or shrank (an error shown, a progress bar) keeps its frame fitted; layout
      // only, so no history entry and no unsaved-changes mark.
      set({ sizes, graph: Groups.refitGroupsOf(get().graph, Object.keys(measured), sizes) });
    },
    groupSelection(label) {
      const { graph, id } = Groups.makeGroup(get().graph, get().selectedNodes, get().sizes, label);
      if (!id) return null;
      get().commit(graph);
      set({ selectedNodes: [], selectedEdges: [], selectedGroups: [id] });
      return id;
    },
    ungroupSelection() {
      const { graph, selectedGroups, selectedNodes } = get();
      const of = Groups.groupIndex(graph);
      const ids = [...selectedGroups, ...selectedNodes.map((n) => of.get(n)?.id).filter((x): x is string => x !== undefined)];
      get().commit(Groups.ungroup(graph, ids));
      set({ selectedGroups: [] });
    },
    renameGroup: (groupId, label) => get().commit(Groups.renameGroup(get().graph, groupId, label)),
    deleteSelection() {
      const { selectedNodes, selectedEdges, selectedGroups, graph } = get();
      if (!selectedNodes.length && !selectedEdges.length && !selectedGroups.length) return;
      // A selected frame goes, its nodes stay (deleting them too would surprise more than help).
      get().commit(G.removeItems(Groups.ungroup(graph, selectedGroups), new Set(selectedNodes), new Set(selectedEdges)));
      const gone = new Set(selectedNodes);
      const invalid = Object.fromEntries(Object.entries(get().invalid).filter(([k]) => !gone.has(k.slice(0, k.lastIndexOf('/')))));
      set({ selectedNodes: [], selectedEdges: [], selectedGroups: [], invalid });
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
      const laid = { ...g, nodes: g.nodes.map((n) => ({ ...n, position: pos[n.id] ?? n.position })) };
      // Frames follow their members to where the layout put them.
      get().commit(Groups.refitGroupsOf(laid, laid.nodes.map((n) => n.id), get().sizes));
      // A layout moves nodes where the view may not show them: the canvas fits the graph again.
      set({ fitSeq: get().fitSeq + 1 });
    },
    markSaved: (filePath) => set({ filePath, dirty: false }),
    setNotice: (notice) => set({ notice }),
    setInvalid(node, param, draft) {
      const key = fieldKey(node, param);
      const { [key]: old, ...rest } = get().invalid;
      if (!draft && !old) return;
      set({ invalid: draft ? { ...rest, [key]: draft } : rest });
    },
    focusProblem(node, field) {
      if (!get().graph.nodes.some((n) => n.id === node)) return;
      set({ selectedNodes: [node], selectedEdges: [], selectedGroups: [], focus: { node, field, seq: (get().focus?.seq ?? 0) + 1 } });
    },
  }));
  // One place keeps the problems in step, whatever action changed the graph, catalog or drafts.
  store.subscribe((s, prev) => {
    if (s.graph === prev.graph && s.cat === prev.cat && s.invalid === prev.invalid) return;
    const problems = mergeProblems(graphProblems(s.graph, s.cat), draftProblems(s.invalid));
    // A drag changes the graph on every move; the list (and what reads it) stays put when equal.
    if (JSON.stringify(problems) !== JSON.stringify(s.problems)) store.setState({ problems });
  });
  return store;
};

export type EditorStore = ReturnType<typeof createEditorStore>;
