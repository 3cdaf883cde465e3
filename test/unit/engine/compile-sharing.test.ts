/**
 * What a million-task compile keeps small (issue 29 item 5): the tasks of one grid share their
 * block shapes, unit steps and empty deps as frozen arrays instead of holding a copy each, and
 * block offsets come from cached prefix sums. Offsets and shapes are checked against values
 * worked out by hand for a 10 x 7 array in 4 x 3 chunks.
 */
import { describe, expect, it } from 'vitest';
import type { ChunkProgram } from '../../../common/arrays';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { blockOffset } from '../../../main/engine/compile/chunks';
import { validateWorkflow } from '../../../main/engine/validate';

const doc = {
  format: 'gpuflow.workflow/1',
  nodes: [
    { id: 'x', op: 'random_normal', params: { shape: [10, 7], chunks: [4, 3] } },
    { id: 'total', op: 'reduce', params: { op: 'sum' } },
  ],
  edges: [{ source: 'x', sourcePort: 'out', target: 'total', targetPort: 'x' }],
};

function programOf(key: string, tasks: ReturnType<typeof compileWorkflow>['tasks']): ChunkProgram {
  const t = tasks.get(key);
  if (t?.spec.kind !== 'program') throw new Error(`no program task ${key}`);
  return t.spec.program;
}

describe('compile: what the blocks of a grid share', () => {
  it('block offsets are the sums of the chunks before them (axes [4,4,2] and [3,3,1])', () => {
    const chunks = [[4, 4, 2], [3, 3, 1]];
    expect(blockOffset(chunks, [0, 0])).toEqual([0, 0]);
    expect(blockOffset(chunks, [2, 1])).toEqual([8, 3]);
    expect(blockOffset(chunks, [1, 2])).toEqual([4, 6]);
    // Asked again (the cached prefix sums): the same answer.
    expect(blockOffset(chunks, [2, 2])).toEqual([8, 6]);
  });

  it('a reduction over a generated grid: offsets by hand, one frozen shape per distinct block shape', () => {
    const { tasks } = compileWorkflow(validateWorkflow(doc));
    const p00 = programOf('total/sum(0,0)', tasks);
    const p01 = programOf('total/sum(0,1)', tasks);
    const p11 = programOf('total/sum(1,1)', tasks);
    const p22 = programOf('total/sum(2,2)', tasks);
    expect(p11.reduce?.offset).toEqual([4, 3]);
    expect(p22.reduce?.offset).toEqual([8, 6]);
    expect(p22.shape).toEqual([2, 1]);
    // Full 4 x 3 blocks hold one shared array, which no task can change under the others.
    expect(p00.shape).toEqual([4, 3]);
    expect(p01.shape).toBe(p00.shape);
    expect(p11.shape).toBe(p00.shape);
    expect(Object.isFrozen(p00.shape)).toBe(true);
    const leaf = (p: ChunkProgram) => (p.expr.kind === 'leaf' ? p.expr.leaf : null);
    const l11 = leaf(p11);
    const l01 = leaf(p01);
    const l22 = leaf(p22);
    if (l11?.kind !== 'random' || l01?.kind !== 'random' || l22?.kind !== 'random') throw new Error('expected random leaves');
    expect(l11.region.start).toEqual([4, 3]);
    expect(l11.region.count).toEqual([4, 3]);
    expect(l11.region.count).toBe(l01.region.count);
    expect(l22.region.count).toEqual([2, 1]);
    expect(l22.region.step).toBe(l11.region.step);
    expect(l11.region.step).toEqual([1, 1]);
    expect(tasks.get('total/sum(0,1)')?.deps).toBe(tasks.get('total/sum(2,2)')?.deps);
    expect(tasks.get('total/sum(0,1)')?.deps).toEqual([]);
  });
});
