/**
 * What a node's result depends on, as a string: its op, params, the workflow params and the
 * signatures of the nodes feeding it (with the ports). Two equal signatures mean the node would
 * compute the same thing, so the editor can tell "done" (unchanged since the run) from "stale"
 * (edited, or something upstream was). Memoised per graph object (graphs are immutable).
 */
import { canonicalJson } from '../../common/canonical-json';
import type { Graph } from './graph-model';

const cache = new WeakMap<Graph, Map<string, string>>();

export function nodeSignatures(g: Graph): Map<string, string> {
  const hit = cache.get(g);
  if (hit) return hit;
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const out = new Map<string, string>();
  // Canonical (sorted keys): the same params typed in another order, or read back from the store,
  // which keeps workflows canonical, are the same computation.
  const params = canonicalJson(g.params);
  const visiting = new Set<string>();
  const sig = (id: string): string => {
    const done = out.get(id);
    if (done !== undefined) return done;
    const n = byId.get(id);
    if (!n || visiting.has(id)) return `?${id}`;
    visiting.add(id);
    const ins = g.edges
      .filter((e) => e.target === id)
      .map((e) => `${e.targetPort}<-${e.sourcePort}:${sig(e.source)}`)
      .sort();
    visiting.delete(id);
    const s = canonicalJson([n.op, n.params, ins, params]);
    out.set(id, s);
    return s;
  };
  for (const n of g.nodes) sig(n.id);
  cache.set(g, out);
  return out;
}
