/**
 * The graph rules of a workflow, as pure functions of the document and the node catalog: the
 * same checks whether main validates a document before a run (main/engine/validate.ts adds the
 * JSON shape and the file-path policy, which need zod and the file system) or the renderer checks
 * the graph as it is drawn (renderer/logic/problems.ts), so the editor can disable Run with the
 * reason the server would give.
 *
 * Every problem names its JSON path and node, e.g. `nodes[0].params.chunks` on node 'x':
 * "[0] must be positive, got -5". Checked, in order: ops and params ("$refs" resolved, types,
 * bounds, unknown params), chunk/shape arity, edges and port types, required inputs, cycles.
 */
import type { NodeKindSpec, PortSpec } from './catalog';
import { checkParam, resolveRefs, withDefaults } from './params';
import type { ParamValue, WorkflowDoc } from './workflow';

export interface GraphProblem {
  /** JSON path in the document, e.g. "nodes[3].params.chunks". */
  path: string;
  detail: string;
  /** Id of the node concerned, when there is one. */
  node?: string;
}

export interface GraphCheck {
  problems: GraphProblem[];
  /** Node params with "$refs" resolved and defaults filled, by node id (nodes of known ops). */
  params: Map<string, Record<string, ParamValue>>;
  /** Node ids in an order where every node follows its inputs (complete only without a cycle). */
  order: string[];
}

type Doc = Pick<WorkflowDoc, 'nodes' | 'edges' | 'params'>;

/** Checks a document's nodes and edges against the catalog; never throws. */
export function checkGraph(doc: Doc, ops: ReadonlyMap<string, NodeKindSpec>): GraphCheck {
  const problems: GraphProblem[] = [];
  const push = (path: string, detail: string, node?: string) => problems.push(node === undefined ? { path, detail } : { path, detail, node });
  const index = new Map<string, number>();
  const params = new Map<string, Record<string, ParamValue>>();
  const table = doc.params ?? {};

  doc.nodes.forEach((n, i) => {
    const at = `nodes[${i}]`;
    if (index.has(n.id)) push(`${at}.id`, `duplicate id (also nodes[${index.get(n.id)}])`, n.id);
    index.set(n.id, i);
    const op = ops.get(n.op);
    if (!op) return push(`${at}.op`, `unknown op '${n.op}' (known: ${[...ops.keys()].join(', ')})`, n.id);
    const refs: Array<[string, string]> = [];
    const resolved: Record<string, ParamValue> = Object.fromEntries(Object.entries(n.params).map(([k, v]) => [k, resolveRefs(v, table, `${at}.params.${k}`, refs)]));
    for (const [path, detail] of refs) push(path, detail, n.id);
    const known = new Set(op.params.map((p) => p.name));
    for (const k of Object.keys(n.params)) {
      if (!known.has(k)) push(`${at}.params.${k}`, `unknown param of '${n.op}' (it takes: ${[...known].join(', ')})`, n.id);
    }
    const bad = new Set<string>();
    for (const spec of op.params) {
      const problem = checkParam(spec, resolved[spec.name]);
      if (problem) {
        bad.add(spec.name);
        push(`${at}.params.${spec.name}`, problem, n.id);
      }
    }
    const arity = chunkArity(op, resolved, bad);
    if (arity) push(`${at}.params.chunks`, arity, n.id);
    params.set(n.id, withDefaults(op.params, resolved));
  });

  const incoming = new Map<string, Map<string, number>>();
  const findPort = (ports: PortSpec[], name: string) => ports.find((p) => p.name === name);
  doc.edges.forEach((e, i) => {
    const at = `edges[${i}]`;
    const si = index.get(e.source);
    const ti = index.get(e.target);
    if (si === undefined) return push(`${at}.source`, `no node with id '${e.source}'`);
    if (ti === undefined) return push(`${at}.target`, `no node with id '${e.target}'`);
    const sop = ops.get(doc.nodes[si].op);
    const top = ops.get(doc.nodes[ti].op);
    if (!sop || !top) return;
    const sp = findPort(sop.outputs, e.sourcePort);
    const tp = findPort(top.inputs, e.targetPort);
    if (!sp) return push(`${at}.sourcePort`, `'${doc.nodes[si].op}' has no output '${e.sourcePort}' (outputs: ${sop.outputs.map((p) => p.name).join(', ') || 'none'})`, e.source);
    if (!tp) return push(`${at}.targetPort`, `'${doc.nodes[ti].op}' has no input '${e.targetPort}' (inputs: ${top.inputs.map((p) => p.name).join(', ') || 'none'})`, e.target);
    if (sp.type !== tp.type) return push(at, `wrong port type: ${e.source}.${e.sourcePort} gives ${sp.type} but ${e.target}.${e.targetPort} takes ${tp.type}`, e.target);
    const ins = incoming.get(e.target) ?? new Map<string, number>();
    if (ins.has(e.targetPort)) push(`${at}.targetPort`, `input '${e.targetPort}' already connected by edges[${ins.get(e.targetPort)}]`, e.target);
    ins.set(e.targetPort, i);
    incoming.set(e.target, ins);
  });
  doc.nodes.forEach((n, i) => {
    const op = ops.get(n.op);
    if (!op) return;
    for (const p of op.inputs) {
      if (!p.optional && !incoming.get(n.id)?.has(p.name)) push(`nodes[${i}].inputs.${p.name}`, `required ${p.type} input is not connected`, n.id);
    }
  });

  const order = topoOrder(doc, index, problems);
  return { problems, params, order };
}

/**
 * A node that takes both a shape and per-axis chunks needs one chunk size per axis (a single
 * number, or a one-entry list, stands for every axis, as in Dask; the compiler's chunkSizes reads both). The compiler says the same thing later; checking it
 * here lets the editor say it before Run.
 */
function chunkArity(op: NodeKindSpec, resolved: Record<string, ParamValue>, bad: Set<string>): string | null {
  const has = (name: string) => op.params.some((p) => p.name === name && p.kind === 'numbers');
  if (!has('shape') || !has('chunks') || bad.has('shape') || bad.has('chunks')) return null;
  const shape = resolved.shape;
  const chunks = resolved.chunks;
  if (!Array.isArray(shape) || !Array.isArray(chunks) || chunks.length === shape.length || chunks.length === 1) return null;
  return `has ${chunks.length} entries but shape has ${shape.length} axes`;
}

/** Kahn's algorithm; a cycle is reported with the nodes on it. */
function topoOrder(doc: Doc, index: Map<string, number>, problems: GraphProblem[]): string[] {
  const indeg = new Map<string, number>(doc.nodes.map((n) => [n.id, 0]));
  const out = new Map<string, string[]>();
  for (const e of doc.edges) {
    if (!index.has(e.source) || !index.has(e.target)) continue;
    indeg.set(e.target, (indeg.get(e.target) ?? 0) + 1);
    out.set(e.source, [...(out.get(e.source) ?? []), e.target]);
  }
  const ready = doc.nodes.filter((n) => indeg.get(n.id) === 0).map((n) => n.id);
  const order: string[] = [];
  while (ready.length) {
    const id = ready.shift()!;
    order.push(id);
    for (const t of out.get(id) ?? []) {
      indeg.set(t, indeg.get(t)! - 1);
      if (indeg.get(t) === 0) ready.push(t);
    }
  }
  if (order.length < indeg.size) {
    const stuck = [...indeg.entries()].filter(([, d]) => d > 0).map(([id]) => id);
    problems.push({ path: 'edges', detail: `cycle through nodes ${stuck.map((s) => `'${s}'`).join(', ')}`, node: stuck[0] });
  }
  return order;
}
