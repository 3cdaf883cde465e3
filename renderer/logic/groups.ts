/**
 * Editor groups as pure operations on the graph: make a group around some nodes, ungroup, move a
 * group with its members, refit frames to their members, rename, and drop members that were
 * deleted. Member positions stay absolute (as in the file); the canvas binding turns them into
 * positions relative to the frame for xyflow's parent nodes.
 */
import type { WorkflowGroup } from '../../common/workflow';
import type { Graph } from './graph';

export interface Size {
  width: number;
  height: number;
}
export interface Point {
  x: number;
  y: number;
}

/** Space between the members and the frame, and the frame's title bar above them. */
export const GROUP_PAD = 20;
export const GROUP_TITLE = 28;
/** A node's size before the canvas has measured it (about a one-port node). */
export const DEFAULT_NODE_SIZE: Size = { width: 210, height: 80 };

/** Prefix of a group's id on the canvas, so it cannot clash with a node id. */
export const GROUP_PREFIX = 'group:';
export const flowGroupId = (groupId: string) => `${GROUP_PREFIX}${groupId}`;
export const groupIdOfFlow = (flowId: string): string | null => (flowId.startsWith(GROUP_PREFIX) ? flowId.slice(GROUP_PREFIX.length) : null);

export const groupsOf = (g: Graph): WorkflowGroup[] => g.groups ?? [];

/** The frame (top-left and size) around these rectangles, with padding and the title bar. */
export function frameAround(rects: Array<Point & Size>): { position: Point; size: Size } {
  if (!rects.length) throw new RangeError('a group needs at least one node');
  const x0 = Math.min(...rects.map((r) => r.x));
  const y0 = Math.min(...rects.map((r) => r.y));
  const x1 = Math.max(...rects.map((r) => r.x + r.width));
  const y1 = Math.max(...rects.map((r) => r.y + r.height));
  return {
    position: { x: x0 - GROUP_PAD, y: y0 - GROUP_PAD - GROUP_TITLE },
    size: { width: x1 - x0 + 2 * GROUP_PAD, height: y1 - y0 + 2 * GROUP_PAD + GROUP_TITLE },
  };
}

function memberRects(g: Graph, ids: readonly string[], sizes: Readonly<Record<string, Size>>): Array<Point & Size> {
  const want = new Set(ids);
  return g.nodes.filter((n) => want.has(n.id)).map((n) => ({ ...(n.position ?? { x: 0, y: 0 }), ...(sizes[n.id] ?? DEFAULT_NODE_SIZE) }));
}

function freshGroupId(g: Graph): string {
  const used = new Set(groupsOf(g).map((x) => x.id));
  for (let i = 1; ; i++) if (!used.has(`g${i}`)) return `g${i}`;
}

/**
 * Groups these nodes (unknown ids are ignored). A node already in a group leaves it; groups left
 * empty go, the others are refitted. Returns the graph unchanged (same object) when no node is given.
 */
export function makeGroup(g: Graph, nodeIds: readonly string[], sizes: Readonly<Record<string, Size>> = {}, label?: string): { graph: Graph; id: string | null } {
  const known = new Set(g.nodes.map((n) => n.id));
  const members = [...new Set(nodeIds)].filter((id) => known.has(id));
  if (!members.length) return { graph: g, id: null };
  const id = freshGroupId(g);
  const taken = new Set(members);
  const others: WorkflowGroup[] = [];
  for (const x of groupsOf(g)) {
    const rest = x.nodes.filter((n) => !taken.has(n));
    if (!rest.length) continue;
    others.push(rest.length === x.nodes.length ? x : { ...x, nodes: rest, ...frameAround(memberRects(g, rest, sizes)) });
  }
  const group: WorkflowGroup = { id, label: label ?? `Group ${id.slice(1)}`, nodes: members, ...frameAround(memberRects(g, members, sizes)) };
  return { graph: { ...g, groups: [...others, group] }, id };
}

/** Removes the frames; the nodes stay where they are. */
export function ungroup(g: Graph, groupIds: readonly string[]): Graph {
  const drop = new Set(groupIds);
  if (!groupsOf(g).some((x) => drop.has(x.id))) return g;
  return { ...g, groups: groupsOf(g).filter((x) => !drop.has(x.id)) };
}

/** Moves groups to new top-left corners, their members by the same offset. */
export function moveGroups(g: Graph, positions: Readonly<Record<string, Point>>): Graph {
  const shift = new Map<string, Point>();
  const groups = groupsOf(g).map((x) => {
    const p = positions[x.id];
    if (!p) return x;
    const d = { x: p.x - x.position.x, y: p.y - x.position.y };
    for (const n of x.nodes) shift.set(n, d);
    return { ...x, position: { x: p.x, y: p.y } };
  });
  if (!shift.size) return g;
  const nodes = g.nodes.map((n) => {
    const d = shift.get(n.id);
    const at = n.position ?? { x: 0, y: 0 };
    return d ? { ...n, position: { x: at.x + d.x, y: at.y + d.y } } : n;
  });
  return { ...g, nodes, groups };
}

/** Refits the frames of the groups holding any of these nodes (after members moved or resized). */
export function refitGroupsOf(g: Graph, nodeIds: readonly string[], sizes: Readonly<Record<string, Size>>): Graph {
  const touched = new Set(nodeIds);
  let changed = false;
  const groups = groupsOf(g).map((x) => {
    if (!x.nodes.some((n) => touched.has(n))) return x;
    const f = frameAround(memberRects(g, x.nodes, sizes));
    if (f.position.x === x.position.x && f.position.y === x.position.y && f.size.width === x.size.width && f.size.height === x.size.height) return x;
    changed = true;
    return { ...x, ...f };
  });
  return changed ? { ...g, groups } : g;
}

export function renameGroup(g: Graph, groupId: string, label: string): Graph {
  return { ...g, groups: groupsOf(g).map((x) => (x.id === groupId ? { ...x, label } : x)) };
}

/** After nodes were removed: members that no longer exist leave their groups; empty groups go. */
export function pruneGroups(g: Graph): Graph {
  if (!g.groups?.length) return g;
  const known = new Set(g.nodes.map((n) => n.id));
  const groups = g.groups.map((x) => ({ ...x, nodes: x.nodes.filter((n) => known.has(n)) })).filter((x) => x.nodes.length > 0);
  return { ...g, groups };
}

/** node id -> its group, for the canvas binding. */
export function groupIndex(g: Graph): Map<string, WorkflowGroup> {
  const m = new Map<string, WorkflowGroup>();
  for (const x of groupsOf(g)) for (const n of x.nodes) m.set(n, x);
  return m;
}
