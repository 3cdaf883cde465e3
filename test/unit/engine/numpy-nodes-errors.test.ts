/**
 * Bad parameters of the NumPy-style array nodes are refused at compile time with NumPy's words,
 * naming the node and the field (the happy paths are dask-array-cases.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';

const gen = (id: string, shape: number[]) => ({ id, op: 'random_normal', params: { shape, chunks: shape.map(() => 4) } });
const compile = (nodes: unknown[], edges: Array<[string, string, string]>) =>
  compileWorkflow(validateWorkflow({ format: 'gpuflow.workflow/1', nodes, edges: edges.map(([source, target, targetPort]) => ({ source, sourcePort: 'out', target, targetPort })) }));

describe('NumPy-style nodes refuse bad parameters', () => {
  it('reduce: repeated, out-of-range and conflicting axes; arg* over several axes', () => {
    const r = (params: Record<string, unknown>) => () => compile([gen('x', [5, 6, 7]), { id: 'r', op: 'reduce', params }], [['x', 'r', 'x']]);
    expect(r({ op: 'sum', axes: [0, -3] })).toThrow(/params\.axes.*repeated axis/);
    expect(r({ op: 'sum', axes: [3] })).toThrow(/axis 3 is out of bounds for an array of 3 dimensions/);
    expect(r({ op: 'sum', axis: 0, axes: [1] })).toThrow(/give axis or axes, not both/);
    expect(r({ op: 'argmax', axes: [0, 1] })).toThrow(/argmax takes a single axis/);
  });
  it('reshape, concatenate, stack, histogram, percentile, tensordot', () => {
    const one = (op: string, params: Record<string, unknown>, shape = [5, 6]) => () => compile([gen('x', shape), { id: 'n', op, params }], [['x', 'n', op === 'tensordot' ? 'a' : 'x']]);
    expect(one('reshape', { shape: [7, -1] })).toThrow(/cannot reshape array of size 30 into shape \(7, -1\)/);
    expect(one('reshape', { shape: [-1, -1] })).toThrow(/only specify one unknown dimension/);
    expect(one('histogram', { bins: 4, range: [2, 1] })).toThrow(/params\.range/);
    expect(one('percentile', { q: [50, 101] })).toThrow(/params\.q.*\[0, 100\]/);
    expect(() => compile([gen('a', [5, 6]), gen('b', [5, 7]), { id: 'c', op: 'concatenate', params: { axis: 0 } }], [['a', 'c', 'x0'], ['b', 'c', 'x1']])).toThrow(/does not match \(5, 6\) except on axis 0/);
    expect(() => compile([gen('a', [5, 6]), gen('b', [5, 7]), { id: 's', op: 'stack', params: {} }], [['a', 's', 'x0'], ['b', 's', 'x1']])).toThrow(/same shape/);
    expect(() => compile([gen('a', [5, 6]), gen('b', [5, 6]), { id: 't', op: 'tensordot', params: { axes: 1 } }], [['a', 't', 'a'], ['b', 't', 'b']])).toThrow(/shape-mismatch for sum/);
  });
});
