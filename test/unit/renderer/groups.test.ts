import { describe, expect, it } from 'vitest';
import type { NodeKindSpec } from '../../../common/catalog';
import { WorkflowErrors } from '../../../main/engine/errors';
import { validateWorkflow } from '../../../main/engine/validate';
import { fromDoc, fromText, removeItems, toDoc, type Graph } from '../../../renderer/logic/graph-model';
import { frameAround, GROUP_PAD, GROUP_TITLE, groupIndex, makeGroup, moveGroups, refitGroupsOf, ungroup } from '../../../renderer/logic/groups';
import { createEditorStore } from '../../../renderer/state/editor-store';

const node = (id: string, x: number, y: number) => ({ id, op: 'random_normal', params: {}, position: { x, y } });
const graph = (): Graph => ({ name: 't', params: {}, nodes: [node('a', 0, 0), node('b', 300, 100), node('c', 600, 0)], edges: [] });
const sizes = { a: { width: 200, height: 80 }, b: { width: 220, height: 100 }, c: { width: 200, height: 80 } };

describe('group geometry', () => {
  it('frames the members with padding and a title bar', () => {
    // a spans x 0..200, y 0..80; b spans x 300..520, y 100..200.
    const f = frameAround([
      { x: 0, y: 0, ...sizes.a },
      { x: 300, y: 100, ...sizes.b },
    ]);
    expect(f.position).toEqual({ x: -GROUP_PAD, y: -GROUP_PAD - GROUP_TITLE });
    expect(f.size).toEqual({ width: 520 + 2 * GROUP_PAD, height: 200 + 2 * GROUP_PAD + GROUP_TITLE });
    expect(() => frameAround([])).toThrow(/at least one node/);
  });

  it('makes a group, moves it with its members, refits and ungroups', () => {
    const { graph: g1, id } = makeGroup(graph(), ['a', 'b', 'nope'], sizes);
    expect(id).toBe('g1');
    expect(g1.groups).toEqual([{ id: 'g1', label: 'Group 1', nodes: ['a', 'b'], position: { x: -20, y: -48 }, size: { width: 560, height: 268 } }]);
    const g2 = moveGroups(g1, { g1: { x: 80, y: 52 } });
    expect(g2.nodes.map((n) => n.position)).toEqual([{ x: 100, y: 100 }, { x: 400, y: 200 }, { x: 600, y: 0 }]);
    expect(g2.groups![0].position).toEqual({ x: 80, y: 52 });
    // A member dragged out to the right: the frame grows to hold it.
    const g3 = refitGroupsOf({ ...g2, nodes: g2.nodes.map((n) => (n.id === 'b' ? { ...n, position: { x: 900, y: 200 } } : n)) }, ['b'], sizes);
    expect(g3.groups![0].size.width).toBe(900 + 220 - 100 + 2 * GROUP_PAD);
    expect(ungroup(g3, ['g1']).groups).toEqual([]);
    expect(ungroup(g3, ['other'])).toBe(g3);
  });

  it('a node joins one group only: regrouping takes it out of the old one, empty groups go', () => {
    const { graph: g1 } = makeGroup(graph(), ['a', 'b'], sizes);
    const { graph: g2, id } = makeGroup(g1, ['b', 'c'], sizes);
    expect(id).toBe('g2');
    expect(g2.groups!.map((g) => [g.id, g.nodes])).toEqual([
      ['g1', ['a']],
      ['g2', ['b', 'c']],
    ]);
    expect(g2.groups![0].size).toEqual({ width: 200 + 2 * GROUP_PAD, height: 80 + 2 * GROUP_PAD + GROUP_TITLE });
    expect(groupIndex(g2).get('c')!.id).toBe('g2');
    // Deleting a group's last member removes the group.
    expect(removeItems(g2, new Set(['a']), new Set()).groups!.map((g) => g.id)).toEqual(['g2']);
  });
});

describe('groups in the workflow file', () => {
  it('round-trips through save and open; files without groups stay without', () => {
    const { graph: g } = makeGroup(graph(), ['a', 'c'], sizes, 'inputs');
    const text = JSON.stringify(toDoc(g));
    expect(fromText(text).groups).toEqual(g.groups);
    expect('groups' in toDoc(graph())).toBe(false);
    const old = { format: 'gpuflow.workflow/1', nodes: [node('a', 0, 0)], edges: [] };
    expect(fromDoc(old).groups).toBeUndefined();
  });

  it('names a bad group entry by its path, in the editor and in the engine', () => {
    const doc = {
      format: 'gpuflow.workflow/1',
      nodes: [node('a', 0, 0), node('b', 0, 0)],
      edges: [],
      groups: [
        { id: 'g1', label: 'x', nodes: ['a', 'zz'], position: { x: 0, y: 0 }, size: { width: 10, height: 10 } },
        { id: 'g1', label: 'y', nodes: ['a'], position: { x: 0 }, size: { width: -1, height: 10 } },
      ],
    };
    expect(() => fromDoc(doc)).toThrow(/groups\[0\]\.nodes\[1\]: no node 'zz'/);
    const errorsOf = (d: unknown): string[] => {
      try {
        validateWorkflow(d);
        return [];
      } catch (e) {
        if (!(e instanceof WorkflowErrors)) throw e;
        return e.errors.map((x) => x.message);
      }
    };
    expect(errorsOf(doc)).toEqual(
      expect.arrayContaining([
        expect.stringContaining("groups[0].nodes[1]: no node 'zz'"),
        expect.stringContaining('groups[1].id: duplicate group id (also groups[0])'),
        expect.stringContaining('groups[1].position'),
        expect.stringContaining('groups[1].size'),
        expect.stringContaining("groups[1].nodes[0]: node 'a' is already in groups[0]"),
      ]),
    );
    // A valid group passes the engine and does not change what runs.
    const ok = { ...doc, groups: [doc.groups[0]].map((g) => ({ ...g, nodes: ['a', 'b'] })) };
    expect(errorsOf(ok).filter((m) => m.includes('groups'))).toEqual([]);
    expect(errorsOf({ ...doc, groups: undefined }).filter((m) => m.includes('groups'))).toEqual([]);
  });
});

describe('groups in the editor store', () => {
  const kinds = [{ op: 'random_normal', label: 'Random normal', category: 'arrays', inputs: [], outputs: [{ name: 'out', type: 'array' }], params: [] }] as unknown as NodeKindSpec[];

  it('group, drag the frame, ungroup: each undoable, params and positions restored', () => {
    const ed = createEditorStore();
    ed.getState().setCatalog(kinds);
    ed.getState().load(graph(), null);
    ed.getState().setSizes(sizes);
    ed.getState().select(['a', 'b'], []);
    expect(ed.getState().groupSelection()).toBe('g1');
    expect(ed.getState().selectedGroups).toEqual(['g1']);
    // Drag: live moves, one history entry at the end.
    ed.getState().beginDrag();
    ed.getState().moveNodes({}, { g1: { x: 0, y: 0 } });
    ed.getState().moveNodes({}, { g1: { x: 30, y: 48 } });
    ed.getState().endDrag();
    expect(ed.getState().graph.nodes.find((n) => n.id === 'a')!.position).toEqual({ x: 50, y: 96 });
    ed.getState().ungroupSelection();
    expect(ed.getState().graph.groups).toEqual([]);
    ed.getState().undo();
    expect(ed.getState().graph.groups![0].position).toEqual({ x: 30, y: 48 });
    ed.getState().undo();
    expect(ed.getState().graph.groups![0].position).toEqual({ x: -20, y: -48 });
    expect(ed.getState().graph.nodes.find((n) => n.id === 'a')!.position).toEqual({ x: 0, y: 0 });
    ed.getState().undo();
    expect(ed.getState().graph.groups ?? []).toEqual([]);
    ed.getState().redo();
    expect(ed.getState().graph.groups![0].nodes).toEqual(['a', 'b']);
  });

  it('auto-layout moves the frames with their members', () => {
    const ed = createEditorStore();
    ed.getState().load(makeGroup(graph(), ['a', 'b'], sizes).graph, null);
    ed.getState().setSizes(sizes);
    ed.getState().autoLayout();
    const g = ed.getState().graph;
    expect(g.groups![0]).toMatchObject(frameAround(['a', 'b'].map((id) => ({ ...g.nodes.find((n) => n.id === id)!.position!, ...sizes[id as 'a' | 'b'] }))));
  });

  it('delete with a frame selected removes the frame, not its nodes', () => {
    const ed = createEditorStore();
    ed.getState().load(makeGroup(graph(), ['a', 'b'], sizes).graph, null);
    ed.getState().selectGroups(['g1']);
    ed.getState().deleteSelection();
    expect(ed.getState().graph.groups).toEqual([]);
    expect(ed.getState().graph.nodes).toHaveLength(3);
  });
});
