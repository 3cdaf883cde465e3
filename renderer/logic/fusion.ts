/**
 * Which graph nodes a task covers. The compiler fuses chains of elementwise nodes into the tasks
 * of the node they feed (one program per chunk), so a fused-away node has no tasks of its own and
 * its work runs inside its consumer's tasks. From the graph and the set of nodes that do have
 * tasks: each task node's origins are itself plus every node upstream reached only through nodes
 * without tasks. The stream highlights a fused task for each of its origins, and a fused-away node
 * takes its progress from the nodes that absorbed it.
 */
import type { WorkflowEdge } from '../../common/workflow';

export function fusedOrigins(nodes: readonly { id: string }[], edges: readonly WorkflowEdge[], hasTasks: (id: string) => boolean): Map<string, string[]> {
  const inputs = new Map<string, string[]>();
  for (const e of edges) inputs.set(e.target, [...(inputs.get(e.target) ?? []), e.source]);
  const out = new Map<string, string[]>();
  for (const n of nodes) {
    if (!hasTasks(n.id)) continue;
    const seen = new Set([n.id]);
    const stack = [...(inputs.get(n.id) ?? [])];
    while (stack.length) {
      const id = stack.pop()!;
      if (seen.has(id) || hasTasks(id)) continue;
      seen.add(id);
      stack.push(...(inputs.get(id) ?? []));
    }
    out.set(n.id, [...seen]);
  }
  return out;
}

/** For each fused-away node, the task nodes that carry its work. */
export function absorbers(origins: Map<string, string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [taskNode, covered] of origins)
    for (const id of covered) if (id !== taskNode) out.set(id, [...(out.get(id) ?? []), taskNode]);
  return out;
}
