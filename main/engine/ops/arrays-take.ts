/**
 * Fancy indexing with a list of integers along one axis (numpy.take(x, indices, axis), x[[0, 3, 5]]):
 * the list is cut into runs that step evenly ([0, 3, 6] is one run of step 3, [5, 5] two of one),
 * each run is a basic slice (sliceArray, pushed into the leaves like any slice), and the runs are
 * concatenated along the axis. So nothing is gathered by a new task kind, and a run of neighbours
 * (a sorted index) costs what the slice costs. The output's chunks along the axis are the runs'
 * pieces of the source blocks.
 */
import { sliceArray } from '../compile/array-lower';
import { arrayInput, axisOf, nums } from './arrays-core';
import { concatArrays } from './arrays-join';
import type { AxisSlice } from './slice-syntax';
import type { OpDef } from './types';

/** `indices` (already non-negative) as runs of an even, non-zero step; a repeated index starts a new run. */
export function indexRuns(indices: number[]): AxisSlice[] {
  const runs: AxisSlice[] = [];
  for (const i of indices) {
    const r = runs[runs.length - 1];
    if (r && r.count === 1 && i !== r.start) {
      r.step = i - r.start;
      r.count = 2;
    } else if (r && r.count > 1 && i === r.start + r.count * r.step) r.count++;
    else runs.push({ start: i, step: 1, count: 1 });
  }
  return runs;
}

const take: OpDef = {
  spec: {
    op: 'take',
    label: 'Take',
    category: 'arrays',
    doc: 'numpy.take(x, indices, axis) and x[[i, j, ...]] along one axis: the elements at a list of integer indices (negative count from the end, repeats allowed), in the list\'s order.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [
      { name: 'indices', kind: 'numbers', integer: true, required: true, doc: 'e.g. [0, 3, 5] or [-1, 0]' },
      { name: 'axis', kind: 'number', integer: true, default: 0, doc: 'negative counts from the end' },
    ],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    const nd = x.shape.length;
    if (nd === 0) return ctx.fail('inputs.x', 'is 0-d: there is no axis to take along');
    const axis = axisOf(ctx, x) ?? 0;
    const n = x.shape[axis];
    const indices = nums(ctx, 'indices').map((i, k) => {
      if (!Number.isInteger(i) || i < -n || i >= n) return ctx.fail('params.indices', `index ${i} (item ${k}) is out of bounds for axis ${axis} with size ${n}`);
      return i < 0 ? i + n : i;
    });
    const runs = indexRuns(indices);
    // An empty list keeps the axis with length 0, as NumPy's x[[]].
    if (runs.length === 0) runs.push({ start: 0, step: 1, count: 0 });
    const layout = x.shape.map((_, d) => d);
    const pieces = runs.map((r) => sliceArray(x, { axes: x.shape.map((len, d) => (d === axis ? r : { start: 0, step: 1, count: len })), layout }, ctx.nodeId));
    return { out: pieces.length === 1 ? pieces[0] : concatArrays(pieces, axis, ctx) };
  },
};

export const TAKE_ARRAY_OPS: OpDef[] = [take];
