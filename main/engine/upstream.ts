/**
 * "Run selected node": the part of a workflow document a node needs, the node and everything
 * upstream of it, as a document of its own. The node is then a sink, so the compiler reports its
 * outputs; nodes elsewhere in the graph (possibly not configured yet) are left out and cannot
 * block the run. Editor groups are dropped (they only arrange the canvas).
 *
 * Works on the raw document (before validation): anything not shaped like a workflow is passed
 * through for validateWorkflow to report with its paths.
 */
import { upstreamIds } from '../../common/upstream';
import { WorkflowError } from './errors';

type Rec = Record<string, unknown>;
const isRec = (x: unknown): x is Rec => typeof x === 'object' && x !== null && !Array.isArray(x);

export function upstreamDoc(doc: unknown, nodeId: string): unknown {
  if (!isRec(doc) || !Array.isArray(doc.nodes) || !Array.isArray(doc.edges)) return doc;
  const nodes = doc.nodes.filter(isRec);
  if (!nodes.some((n) => n.id === nodeId)) throw new WorkflowError('node', `no node '${nodeId}' in the workflow to run`, nodeId);
  const edges = doc.edges.filter(isRec);
  const links = edges.flatMap((e) => (typeof e.source === 'string' && typeof e.target === 'string' ? [{ source: e.source, target: e.target }] : []));
  const keep = upstreamIds(links, nodeId);
  const sub: Rec = {
    ...doc,
    nodes: nodes.filter((n) => typeof n.id === 'string' && keep.has(n.id)),
    edges: edges.filter((e) => typeof e.source === 'string' && typeof e.target === 'string' && keep.has(e.source) && keep.has(e.target)),
  };
  delete sub.groups;
  return sub;
}
