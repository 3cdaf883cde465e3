import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../../main/engine/ops/registry';
import { blockedReason, graphProblems, mergeProblems, serverProblems } from '../../../renderer/logic/problems';
import { catalogMap, fromDoc } from '../../../renderer/logic/graph-model';
import { createEditorStore } from '../../../renderer/state/editor-store';

const cat = catalogMap(catalog());
const seed = () => fromDoc(JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8')));

describe('problems list: the shared graph rules in the renderer', () => {
  it('finds nothing wrong with the seed workflow', () => {
    expect(graphProblems(seed(), cat)).toEqual([]);
  });

  it('names a stray node whose required input is unconnected', () => {
    const g = seed();
    g.nodes.push({ id: 'stray', op: 'scalar_op', params: { op: 'add', value: 1 } });
    expect(graphProblems(g, cat)).toEqual([{ node: 'stray', field: null, text: 'inputs.x: required array input is not connected' }]);
  });

  it('resolves $chunks = -5 and names the field of the node that uses it', () => {
    const g = seed();
    g.params.chunks = -5;
    // Both axes refer to $chunks: the first bad entry is named, as the server names it.
    expect(graphProblems(g, cat)).toEqual([{ node: 'x', field: 'chunks', text: 'chunks[0] must be positive, got -5' }]);
  });

  it('says when chunks and shape have different numbers of axes', () => {
    const g = seed();
    g.nodes[0] = { ...g.nodes[0], params: { ...g.nodes[0].params, chunks: [100, 100, 100] } };
    expect(graphProblems(g, cat)).toEqual([{ node: 'x', field: 'chunks', text: 'chunks has 3 entries but shape has 2 axes' }]);
  });

  it('gives the Run button the first problem and the count of the rest', () => {
    const g = seed();
    g.params.chunks = -5;
    g.nodes.push({ id: 'stray', op: 'scalar_op', params: { op: 'add', value: 1 } });
    expect(blockedReason(graphProblems(g, cat))).toBe("Cannot run: node 'x': chunks[0] must be positive, got -5 (and 1 more problem: see the problems list)");
    expect(blockedReason([])).toBeNull();
  });

  it('reads a refused run back into node, field and words, once each', () => {
    const server = serverProblems(["nodes[1].params.value (node 'plus1'): is required", 'workers: none alive']);
    expect(server).toEqual([
      { node: 'plus1', field: 'value', text: 'value is required' },
      { node: null, field: null, text: 'workers: none alive' },
    ]);
    expect(mergeProblems(server, [{ node: 'plus1', field: 'value', text: 'value is required' }])).toHaveLength(2);
  });

  it('keeps the editor store problems in step with every edit, at once', () => {
    const ed = createEditorStore();
    ed.getState().setCatalog(catalog());
    ed.getState().load(seed(), null);
    expect(ed.getState().problems).toEqual([]);
    ed.getState().setWorkflowParam('chunks', -5);
    expect(ed.getState().problems.map((p) => p.text)).toEqual(['chunks[0] must be positive, got -5']);
    ed.getState().setInvalid('total', 'axis', { text: '[1,', error: 'not a list' });
    expect(ed.getState().problems).toContainEqual({ node: 'total', field: 'axis', text: 'axis: not a list' });
    ed.getState().undo();
    ed.getState().setInvalid('total', 'axis', null);
    expect(ed.getState().problems).toEqual([]);
    ed.getState().focusProblem('x', 'chunks');
    expect(ed.getState().selectedNodes).toEqual(['x']);
    expect(ed.getState().focus).toMatchObject({ node: 'x', field: 'chunks' });
  });
});
