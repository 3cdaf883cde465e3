/**
 * Auto-layout: a simple layered (Sugiyama-style, without crossing minimisation beyond one
 * barycentre pass) placement. Layer = longest path from a source; order in a layer follows the
 * mean position of the node's parents, so chains stay straight.
 */
import type { WorkflowEdge, WorkflowNode } from '../../common/workflow';

export function layeredLayout(nodes: WorkflowNode[], edges: WorkflowEdge[], gapX = 260, gapY = 130): Record<string, { x: number; y: number }> {
  const ids = nodes.map((n) => n.id);
  const parents = new Map(ids.map((id) => [id, [] as string[]]));
  for (const e of edges) parents.get(e.target)?.push(e.source);
  const layer = new Map<string, number>();
  const visiting = new Set<string>();
  const depth = (id: string): number => {
    const known = layer.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return 0; // a cycle (refused by the editor, but files may hold one)
    visiting.add(id);
    const d = Math.max(-1, ...(parents.get(id) ?? []).filter((p) => parents.has(p)).map(depth)) + 1;
    visiting.delete(id);
    layer.set(id, d);
    return d;
  };
  ids.forEach(depth);
  const layers: string[][] = [];
  for (const id of ids) (layers[layer.get(id)!] ??= []).push(id);
  const row = new Map<string, number>();
  const out: Record<string, { x: number; y: number }> = {};
  layers.forEach((members, li) => {
    const score = (id: string) => {
      const ps = (parents.get(id) ?? []).map((p) => row.get(p)).filter((r): r is number => r !== undefined);
      return ps.length ? ps.reduce((a, b) => a + b, 0) / ps.length : members.indexOf(id);
    };
    const sorted = [...members].sort((a, b) => score(a) - score(b));
    sorted.forEach((id, r) => {
      row.set(id, r);
      out[id] = { x: 40 + li * gapX, y: 80 + r * gapY };
    });
  });
  return out;
}

/** The minimap scaled to the canvas: a sixth of its width, within 96..200 px, 5:3. */
export function miniSize(canvasWidth: number): { width: number; height: number } {
  const width = Math.round(Math.max(96, Math.min(200, canvasWidth / 6)));
  return { width, height: Math.round(width * 0.6) };
}
