/** Node states from signatures and progress (renderer/logic/node-state.ts, node-signature.ts, fusion.ts). */
import { describe, expect, it } from 'vitest';
import type { NodeKindSpec } from '../../../common/catalog';
import { absorbers, fusedOrigins } from '../../../renderer/logic/fusion';
import type { Graph } from '../../../renderer/logic/graph-model';
import { nodeSignatures } from '../../../renderer/logic/node-signature';
import { nodeState, type NodeStateInput } from '../../../renderer/logic/node-state';

const chain: Graph = {
  name: 'chain',
  params: { N: 10 },
  nodes: [
    { id: 'x', op: 'gen', params: { n: '$N' } },
    { id: 'plus1', op: 'add', params: { value: 1 } },
    { id: 'total', op: 'sum', params: {} },
  ],
  edges: [
    { source: 'x', sourcePort: 'out', target: 'plus1', targetPort: 'x' },
    { source: 'plus1', sourcePort: 'out', target: 'total', targetPort: 'x' },
  ],
};

describe('nodeSignatures', () => {
  it('changes for a node and everything downstream of an edit, not upstream', () => {
    const before = nodeSignatures(chain);
    const edited: Graph = { ...chain, nodes: chain.nodes.map((n) => (n.id === 'plus1' ? { ...n, params: { value: 2 } } : n)) };
    const after = nodeSignatures(edited);
    expect(after.get('x')).toBe(before.get('x'));
    expect(after.get('plus1')).not.toBe(before.get('plus1'));
    expect(after.get('total')).not.toBe(before.get('total'));
  });
  it('does not depend on the order params were typed in (the store keeps workflows canonical)', () => {
    const a = { ...chain, nodes: [...chain.nodes.slice(0, 2), { id: 'total', op: 'sum', params: { axis: 0, keep: true } }] };
    const b = { ...chain, nodes: [...chain.nodes.slice(0, 2), { id: 'total', op: 'sum', params: { keep: true, axis: 0 } }] };
    expect(nodeSignatures(a).get('total')).toBe(nodeSignatures(b).get('total'));
  });
  it('changes every node when a workflow param changes', () => {
    const after = nodeSignatures({ ...chain, params: { N: 11 } });
    for (const id of ['x', 'plus1', 'total']) expect(after.get(id)).not.toBe(nodeSignatures(chain).get(id));
  });
});

describe('fusedOrigins', () => {
  it('gives a fused task every upstream node without tasks of its own', () => {
    const o = fusedOrigins(chain.nodes, chain.edges, (id) => id === 'total');
    expect(o.get('total')?.sort()).toEqual(['plus1', 'total', 'x']);
    expect(absorbers(o).get('x')).toEqual(['total']);
    expect(absorbers(o).has('total')).toBe(false);
  });
  it('stops at a node that has tasks', () => {
    const o = fusedOrigins(chain.nodes, chain.edges, (id) => id !== 'plus1');
    expect(o.get('total')?.sort()).toEqual(['plus1', 'total']);
    expect(o.get('x')).toEqual(['x']);
  });
});

describe('nodeState', () => {
  const spec: NodeKindSpec = { op: 'add', label: 'Add', category: 'arrays', doc: '', inputs: [{ name: 'x', type: 'array' }], outputs: [{ name: 'out', type: 'array' }], params: [] } as unknown as NodeKindSpec;
  const base: NodeStateInput = { node: { id: 'a', op: 'add', params: {} }, spec, connectedInputs: new Set(['x']), progress: undefined, runtimeErrors: 0, invalid: false, running: false, signature: 's1', doneSignature: undefined };
  it('a node never run is ready, not done', () => expect(nodeState(base)).toBe('ready'));
  it('done while unchanged since its run, stale after an edit', () => {
    expect(nodeState({ ...base, doneSignature: 's1' })).toBe('done');
    expect(nodeState({ ...base, doneSignature: 's0' })).toBe('stale');
  });
  it('during a run: waiting, running, then done as its tasks finish', () => {
    expect(nodeState({ ...base, running: true, progress: [0, 4] })).toBe('waiting');
    expect(nodeState({ ...base, running: true, progress: [1, 4] })).toBe('running');
    expect(nodeState({ ...base, running: true, progress: [4, 4] })).toBe('done');
  });
  it('running, not waiting, while its first tasks compute and none has finished', () => {
    expect(nodeState({ ...base, running: true, progress: [0, 4], tasksRunning: true })).toBe('running');
  });
  it('validation problems read invalid, runtime errors failed, a missing input not configured', () => {
    expect(nodeState({ ...base, invalid: true })).toBe('invalid');
    expect(nodeState({ ...base, runtimeErrors: 1, doneSignature: 's1' })).toBe('failed');
    expect(nodeState({ ...base, connectedInputs: new Set() })).toBe('unconfigured');
  });
  it('cancelled when the run on show was cancelled before computing it; done if it finished first', () => {
    expect(nodeState({ ...base, stopped: true })).toBe('cancelled');
    expect(nodeState({ ...base, stopped: true, doneSignature: 's1' })).toBe('done');
    expect(nodeState({ ...base, stopped: true, running: true, progress: [1, 4] })).toBe('running');
  });
});
