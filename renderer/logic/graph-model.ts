/**
 * The editor's graph as plain data (a WorkflowDoc without the format tag) and the pure operations
 * on it: adding nodes with fresh ids, checking and adding connections, deleting, copy/paste.
 * No React, no xyflow: the bindings map these onto the canvas.
 */
import type { NodeKindSpec, PortSpec } from '../../common/catalog';
import { WORKFLOW_FORMAT, type ParamValue, type WorkflowDoc, type WorkflowEdge, type WorkflowNode } from '../../common/workflow';
import { parseGroups } from '../../common/workflow-groups';
import { EDITOR_ERRORS, EditorError } from './errors';
import type { Graph } from './graph';
import { pruneGroups } from './groups';

export type { Graph } from './graph';

export const emptyGraph = (): Graph => ({ name: 'untitled', params: {}, nodes: [], edges: [] });

export type Catalog = ReadonlyMap<string, NodeKindSpec>;

export function catalogMap(kinds: NodeKindSpec[]): Catalog {
  return new Map(kinds.map((k) => [k.op, k]));
}

/** A short, readable id not used in the graph: "reduce", "reduce_2", ... */
export function freshId(graph: Pick<Graph, 'nodes'>, base: string, taken: Set<string> = new Set()): string {
  const used = new Set([...graph.nodes.map((n) => n.id), ...taken]);
  const stem = base.replace(/[^A-Za-z0-9_]/g, '_') || 'node';
  if (!used.has(stem)) return stem;
  for (let i = 2; ; i++) if (!used.has(`${stem}_${i}`)) return `${stem}_${i}`;
}

/** Params a new node starts with: the catalog defaults, nothing else. */
export function defaultParams(spec: NodeKindSpec): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const p of spec.params) if (p.default !== undefined) out[p.name] = p.default as ParamValue;
  return out;
}

export function addNode(graph: Graph, spec: NodeKindSpec, position: { x: number; y: number }): { graph: Graph; id: string } {
  const id = freshId(graph, spec.op);
  const node: WorkflowNode = { id, op: spec.op, params: defaultParams(spec), position };
  return { graph: { ...graph, nodes: [...graph.nodes, node] }, id };
}

function port(cat: Catalog, node: WorkflowNode, side: 'inputs' | 'outputs', name: string): PortSpec {
  const spec = cat.get(node.op);
  if (!spec) throw new EditorError('UNKNOWN_OP', EDITOR_ERRORS.UNKNOWN_OP(node.op));
  const p = spec[side].find((x) => x.name === name);
  if (!p) throw new EditorError('UNKNOWN_PORT', EDITOR_ERRORS.UNKNOWN_PORT(node.id, name));
  return p;
}

function reaches(edges: WorkflowEdge[], from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length) {
    const n = stack.pop()!;
    if (n === to) return true;
    if (seen.has(n)) continue;
    seen.add(n);
    for (const e of edges) if (e.source === n) stack.push(e.target);
  }
  return false;
}

/** Why this edge may not be added, or null when it may. */
export function connectionProblem(graph: Graph, cat: Catalog, e: WorkflowEdge): EditorError | null {
  try {
    if (e.source === e.target) return new EditorError('SAME_NODE', EDITOR_ERRORS.SAME_NODE());
    const src = graph.nodes.find((n) => n.id === e.source);
    const dst = graph.nodes.find((n) => n.id === e.target);
    if (!src) return new EditorError('UNKNOWN_PORT', EDITOR_ERRORS.UNKNOWN_PORT(e.source, e.sourcePort));
    if (!dst) return new EditorError('UNKNOWN_PORT', EDITOR_ERRORS.UNKNOWN_PORT(e.target, e.targetPort));
    const out = port(cat, src, 'outputs', e.sourcePort);
    const inp = port(cat, dst, 'inputs', e.targetPort);
    // A scalar may feed an array input: the engine broadcasts it (arrayInput in the core ops).
    const compatible = out.type === inp.type || (out.type === 'scalar' && inp.type === 'array');
    if (!compatible) return new EditorError('TYPE_MISMATCH', EDITOR_ERRORS.TYPE_MISMATCH(out.type, inp.type, inp.name));
    if (graph.edges.some((x) => x.target === e.target && x.targetPort === e.targetPort))
      return new EditorError('INPUT_TAKEN', EDITOR_ERRORS.INPUT_TAKEN(e.targetPort));
    if (reaches(graph.edges, e.target, e.source)) return new EditorError('CYCLE', EDITOR_ERRORS.CYCLE());
    return null;
  } catch (err) {
    if (err instanceof EditorError) return err;
    throw err;
  }
}

export function connect(graph: Graph, cat: Catalog, e: WorkflowEdge): Graph {
  const problem = connectionProblem(graph, cat, e);
  if (problem) throw problem;
  return { ...graph, edges: [...graph.edges, e] };
}

export const edgeId = (e: WorkflowEdge) => `${e.source}.${e.sourcePort}->${e.target}.${e.targetPort}`;

export function removeItems(graph: Graph, nodeIds: Set<string>, edgeIds: Set<string>): Graph {
  return pruneGroups({
    ...graph,
    nodes: graph.nodes.filter((n) => !nodeIds.has(n.id)),
    edges: graph.edges.filter((e) => !edgeIds.has(edgeId(e)) && !nodeIds.has(e.source) && !nodeIds.has(e.target)),
  });
}

export function setParam(graph: Graph, nodeId: string, name: string, value: ParamValue | undefined): Graph {
  return {
    ...graph,
    nodes: graph.nodes.map((n) => {
      if (n.id !== nodeId) return n;
      const params = { ...n.params };
      if (value === undefined) delete params[name];
      else params[name] = value;
      return { ...n, params };
    }),
  };
}

export interface Clip {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}

/** The selected nodes and the edges among them. */
export function copy(graph: Graph, ids: Set<string>): Clip {
  return {
    nodes: graph.nodes.filter((n) => ids.has(n.id)).map((n) => structuredClone(n)),
    edges: graph.edges.filter((e) => ids.has(e.source) && ids.has(e.target)).map((e) => ({ ...e })),
  };
}

/** Pastes a clip with fresh ids, offset so the copies do not hide the originals. */
export function paste(graph: Graph, clip: Clip, offset = 40): { graph: Graph; ids: string[] } {
  const rename = new Map<string, string>();
  const taken = new Set<string>();
  for (const n of clip.nodes) {
    const id = freshId(graph, n.id.replace(/_\d+$/, ''), taken);
    taken.add(id);
    rename.set(n.id, id);
  }
  const nodes = clip.nodes.map((n) => ({
    ...structuredClone(n),
    id: rename.get(n.id)!,
    position: { x: (n.position?.x ?? 0) + offset, y: (n.position?.y ?? 0) + offset },
  }));
  const edges = clip.edges.map((e) => ({ ...e, source: rename.get(e.source)!, target: rename.get(e.target)! }));
  return { graph: { ...graph, nodes: [...graph.nodes, ...nodes], edges: [...graph.edges, ...edges] }, ids: nodes.map((n) => n.id) };
}

export function toDoc(g: Graph): WorkflowDoc {
  const doc: WorkflowDoc = { format: WORKFLOW_FORMAT, name: g.name, params: g.params, nodes: g.nodes, edges: g.edges };
  if (g.description) doc.description = g.description;
  // Written only when there are groups, so files without any stay as they were.
  if (g.groups?.length) doc.groups = g.groups;
  return doc;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a file's text into a graph, with errors naming the field that is wrong. */
export function fromText(text: string): Graph {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new EditorError('BAD_FILE', EDITOR_ERRORS.BAD_FILE(`invalid JSON (${e instanceof Error ? e.message : String(e)})`));
  }
  return fromDoc(raw);
}

export function fromDoc(raw: unknown): Graph {
  const bad = (d: string) => new EditorError('BAD_FILE', EDITOR_ERRORS.BAD_FILE(d));
  if (!isObj(raw)) throw bad('the top level must be an object');
  if (raw.format !== WORKFLOW_FORMAT) throw bad(`format: must be "${WORKFLOW_FORMAT}", got ${JSON.stringify(raw.format)}`);
  if (!Array.isArray(raw.nodes)) throw bad('nodes: must be a list');
  if (!Array.isArray(raw.edges)) throw bad('edges: must be a list');
  raw.nodes.forEach((n, i) => {
    if (!isObj(n) || typeof n.id !== 'string' || typeof n.op !== 'string') throw bad(`nodes[${i}]: needs a string id and op`);
    if (n.params !== undefined && !isObj(n.params)) throw bad(`nodes[${i}].params: must be an object`);
  });
  raw.edges.forEach((e, i) => {
    if (!isObj(e) || !['source', 'sourcePort', 'target', 'targetPort'].every((k) => typeof e[k] === 'string'))
      throw bad(`edges[${i}]: needs string source, sourcePort, target, targetPort`);
  });
  const nodes = (raw.nodes as Array<Record<string, unknown>>).map((n, i) => ({
    id: n.id as string,
    op: n.op as string,
    params: (n.params ?? {}) as Record<string, ParamValue>,
    position: isObj(n.position) && typeof n.position.x === 'number' && typeof n.position.y === 'number' ? { x: n.position.x, y: n.position.y } : { x: 40 + 260 * i, y: 120 },
    ...(typeof n.label === 'string' ? { label: n.label } : {}),
  }));
  const grouped = parseGroups(raw.groups, new Set(nodes.map((n) => n.id)));
  if (grouped.problems.length) throw bad(grouped.problems.map((p) => `${p.path}: ${p.message}`).join('; '));
  return {
    name: typeof raw.name === 'string' ? raw.name : 'untitled',
    ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
    params: isObj(raw.params) ? (raw.params as Graph['params']) : {},
    nodes,
    edges: raw.edges as WorkflowEdge[],
    ...(grouped.groups.length ? { groups: grouped.groups } : {}),
  };
}
