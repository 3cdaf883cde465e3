/**
 * Reading a workflow's `groups` list (editor frames, see WorkflowGroup). Shared by the engine's
 * validator and the renderer's file reader so both accept and refuse the same files, with the
 * same messages naming the bad entry by path ("groups[1].nodes[0]: no node 'x'"). Old files have
 * no `groups` at all; that is an empty list, not an error.
 */
import type { WorkflowGroup } from './workflow';

export interface GroupProblem {
  path: string;
  message: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Parses `raw` (the document's `groups` field) against the document's node ids; every problem is listed. */
export function parseGroups(raw: unknown, nodeIds: ReadonlySet<string>): { groups: WorkflowGroup[]; problems: GroupProblem[] } {
  const problems: GroupProblem[] = [];
  const groups: WorkflowGroup[] = [];
  if (raw === undefined) return { groups, problems };
  if (!Array.isArray(raw)) return { groups, problems: [{ path: 'groups', message: 'must be a list' }] };
  const groupIds = new Map<string, number>();
  const owner = new Map<string, number>();
  raw.forEach((g, i) => {
    const at = `groups[${i}]`;
    const bad = (path: string, message: string) => problems.push({ path: `${at}${path}`, message });
    if (!isObj(g)) return bad('', 'must be an object with id, label, nodes, position and size');
    const before = problems.length;
    if (typeof g.id !== 'string' || g.id === '') bad('.id', 'must be a non-empty string');
    else if (groupIds.has(g.id)) bad('.id', `duplicate group id (also groups[${groupIds.get(g.id)}])`);
    else groupIds.set(g.id, i);
    if (typeof g.label !== 'string') bad('.label', 'must be a string');
    if (!isObj(g.position) || !finite(g.position.x) || !finite(g.position.y)) bad('.position', 'must be {x, y} with finite numbers');
    if (!isObj(g.size) || !finite(g.size.width) || !finite(g.size.height) || g.size.width <= 0 || g.size.height <= 0)
      bad('.size', 'must be {width, height} with positive numbers');
    if (!Array.isArray(g.nodes)) bad('.nodes', 'must be a list of node ids');
    else
      g.nodes.forEach((n, j) => {
        if (typeof n !== 'string') return bad(`.nodes[${j}]`, 'must be a node id (string)');
        if (!nodeIds.has(n)) return bad(`.nodes[${j}]`, `no node '${n}' in this workflow`);
        if (owner.has(n)) return bad(`.nodes[${j}]`, `node '${n}' is already in groups[${owner.get(n)}]`);
        owner.set(n, i);
      });
    if (problems.length > before) return;
    const id = g.id as string;
    const pos = g.position as { x: number; y: number };
    const size = g.size as { width: number; height: number };
    groups.push({ id, label: g.label as string, nodes: [...(g.nodes as string[])], position: { x: pos.x, y: pos.y }, size: { width: size.width, height: size.height } });
  });
  return { groups, problems };
}
