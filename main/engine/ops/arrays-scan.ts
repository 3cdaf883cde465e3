/**
 * Cumulative sums and products along an axis (numpy.cumsum / cumprod). Each block's task scans
 * its block starting from the last slice of the previous block's result along the axis, so the
 * additions happen in NumPy's order (out[k] = out[k - 1] + x[k]) and the answer is NumPy's to the
 * bit; lines of blocks along other axes run in parallel, blocks along the axis in sequence, as
 * dask.array's sequential cumreduction. Without an axis the array is flattened first (C order).
 * nancumsum / nancumprod replace NaN by 0 / 1 in the blocks' programs first.
 */
import { arrayOpSpec } from '../../../common/array-op-params';
import { scanResultType } from '../../../common/dtype-rules';
import { bytesPerElement, sizeOf } from '../../../common/arrays';
import { fromKeys, materialize } from '../compile/array-lower';
import { blockIndices, blockShape } from '../compile/chunks';
import { arrayInput, nanAs } from './arrays-core';
import { reshapeArray } from './arrays-join';
import type { BuildContext, LazyArray, OpDef } from './types';

function scan(x0: LazyArray, axis: number, op: 'sum' | 'prod', ctx: BuildContext): LazyArray {
  const x = materialize(x0, ctx, 'src');
  const dtype = scanResultType(x.dtype);
  const keys = new Map<string, string>();
  const idxs = blockIndices(x.chunks);
  for (const idx of idxs) {
    const deps = [x.block(idx).deps[0]];
    if (idx[axis] > 0) deps.push(keys.get(idx.map((i, d) => (d === axis ? i - 1 : i)).join(','))!);
    const key = ctx.key(`cum${op}`, idx);
    const bytes = sizeOf(blockShape(x.chunks, idx)) * bytesPerElement(dtype);
    ctx.emit({ key, deps, spec: arrayOpSpec('cumulate', { axis, op, dtype }), resource: 'any', op: `cum${op}`, outBytes: bytes, workBytes: 2 * bytes });
    keys.set(idx.join(','), key);
  }
  return fromKeys(x.shape, x.chunks, dtype, idxs.map((i) => keys.get(i.join(','))!), ctx.nodeId, [ctx.nodeId]);
}

/** cumsum / cumprod, or with `nan` numpy.nancumsum / nancumprod: NaN taken as 0 / 1 first. */
function cumOp(op: 'sum' | 'prod', nan = false): OpDef {
  const name = `${nan ? 'nan' : ''}cum${op}`;
  return {
    spec: {
      op: name,
      label: `${nan ? 'NaN-skipping c' : 'C'}umulative ${op === 'sum' ? 'sum' : 'product'}`,
      category: 'arrays',
      doc: `numpy.${name} along an axis (none: over the flattened array), in NumPy's order of operations${nan ? `; NaN counts as ${op === 'sum' ? 0 : 1}` : ''}.`,
      inputs: [{ name: 'x', type: 'array' }],
      outputs: [{ name: 'out', type: 'array' }],
      params: [{ name: 'axis', kind: 'number', integer: true, doc: 'leave empty to flatten first' }],
    },
    build(ctx) {
      let x = nan ? nanAs(arrayInput(ctx, 'x'), op === 'sum' ? 0 : 1, ctx) : arrayInput(ctx, 'x');
      const a = ctx.params.axis;
      if (a === undefined || a === null) {
        if (x.shape.length !== 1) {
          // Flatten (C order) in blocks the size of the input's first block.
          x = reshapeArray(x, [sizeOf(x.shape)], [Math.max(1, sizeOf(blockShape(x.chunks, x.chunks.map(() => 0))))], ctx);
        }
        return { out: scan(x, 0, op, ctx) };
      }
      const nd = x.shape.length;
      if (typeof a !== 'number' || a < -nd || a >= nd) return ctx.fail('params.axis', `axis ${String(a)} is out of bounds for ${nd} dimensions`);
      return { out: scan(x, a < 0 ? a + nd : a, op, ctx) };
    },
  };
}

export const SCAN_ARRAY_OPS: OpDef[] = [cumOp('sum'), cumOp('prod'), cumOp('sum', true), cumOp('prod', true)];
