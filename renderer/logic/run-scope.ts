/**
 * Pure helpers the session uses to decide what a run covers and how it is drawn: the nodes a
 * "run selected" takes, their signatures (node states after the run), the lanes of a stored run,
 * a task key's node, and whether an edit changes what runs at all.
 */
import type { RunRecord } from '../../common/store-types';
import type { Graph } from './graph-model';
import { nodeSignatures } from './node-signature';
import type { Lane } from '../state/task-log';
import { upstreamIds } from '../../common/upstream';

/** Whether two graphs differ in anything a run reads (ops, params, edges), not only in layout. */
export function changesWhatRuns(a: Graph, b: Graph): boolean {
  if (a.params !== b.params || a.edges !== b.edges || a.nodes.length !== b.nodes.length) return true;
  return a.nodes.some((n, i) => n.id !== b.nodes[i].id || n.op !== b.nodes[i].op || n.params !== b.nodes[i].params);
}

/** Signatures of the nodes a run of `scope` (null: all) computes. */
export function sigsFor(g: Graph, scope: string[] | null): Record<string, string> {
  const all = nodeSignatures(g);
  const out: Record<string, string> = {};
  for (const [id, s] of all) if (scope === null || scope.includes(id)) out[id] = s;
  return out;
}

/** Lanes for a stored run, from the devices its record lists (id, kind, label). */
export function lanesOf(rec: RunRecord): Lane[] {
  const devs = Array.isArray(rec.devices) ? rec.devices : [];
  const out: Lane[] = [];
  for (const d of devs) {
    if (d && typeof d === 'object' && !Array.isArray(d) && typeof d.id === 'string')
      out.push({ id: d.id, label: typeof d.label === 'string' ? d.label : d.id, virtual: d.kind === 'virtual-gpu' });
  }
  return out;
}

/** Task keys start with their node id; the longest node id that prefixes the key wins. */
export function nodeOfKey(key: string, graph: Pick<Graph, 'nodes'>): string {
  let best = '';
  for (const n of graph.nodes) if (key.startsWith(n.id) && n.id.length > best.length) best = n.id;
  return best;
}

/** A node and every node upstream of it (what "run selected" runs), sorted. */
export function upstreamOf(graph: Pick<Graph, 'edges'>, node: string): string[] {
  return [...upstreamIds(graph.edges, node)].sort();
}
