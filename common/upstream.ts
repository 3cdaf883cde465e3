/**
 * A node and every node upstream of it, following edges from target back to source: what "Run
 * node" runs. One walk for main (the sub-document it compiles, main/engine/upstream.ts) and the
 * renderer (which nodes that run touches, renderer/logic/run-scope.ts), so the two always agree.
 */
export function upstreamIds(edges: readonly { source: string; target: string }[], node: string): Set<string> {
  const seen = new Set<string>();
  const stack = [node];
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const e of edges) if (e.target === id) stack.push(e.source);
  }
  return seen;
}
