/**
 * Boolean-mask selection, x[mask] (numpy / dask.array boolean indexing with a mask of x's shape):
 * the values where the mask is True, 1-D, in NumPy's C order. How many each block keeps is known
 * only when it runs, so the result has unknown chunk sizes (compile/unknown-sizes.ts), as Dask's
 * NaN chunks: reductions, elementwise ops with numbers and results take it; the rest refuse it.
 *
 * Worked example: x of shape (4, 6) in (2, 3) blocks. The blocks are rechunked to (2, 6) so each
 * spans whole rows (then block order is C order, where Dask's per-block order is not NumPy's),
 * and one 'mask-select' task per block row keeps its True values.
 *
 * A 1-D mask along one axis of an N-D x (`x[m]` is axis 0, `x[:, m]` axis 1) keeps the positions
 * of that axis where m is True and every other axis whole: one 'mask-select-axis' task per block
 * of x with the mask's block of that axis (rechunked to x's chunks there), so only that axis's
 * chunk sizes become unknown, as Dask's.
 */
import { bytesPerElement, sizeOf } from '../../../common/arrays';
import { arrayOpSpec } from '../../../common/array-op-params';
import { fromKeys, materialize } from '../compile/array-lower';
import { blockShape, eachBlockIndex } from '../compile/chunks';
import { rechunk } from '../compile/rechunk';
import { UNKNOWN } from '../compile/unknown-sizes';
import { arrayInput } from './arrays-core';
import type { BuildContext, LazyArray, OpDef } from './types';

const maskSelect: OpDef = {
  spec: {
    op: 'mask_select',
    label: 'Mask select',
    category: 'arrays',
    doc: 'x[mask]: the values of x where the bool mask (same shape, e.g. a comparison of x) is True, 1-D in C order; with a 1-D mask along one axis of an N-D x (x[m], x[:, m]: set axis), the positions of that axis where it is True. The selected length is known when it runs (Dask: unknown chunk sizes): reduce it over all axes, apply scalar ops, unary functions, clip or astype, or take it as a result.',
    inputs: [
      { name: 'x', type: 'array' },
      { name: 'mask', type: 'array' },
    ],
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'axis', kind: 'number', integer: true, default: 0, doc: 'for a 1-D mask along one axis of an N-D x: x[m] is axis 0, x[:, m] axis 1; negative counts from the end' }],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    const m = arrayInput(ctx, 'mask');
    if (m.dtype !== 'bool') return ctx.fail('inputs.mask', `is ${m.dtype}, not bool (a comparison gives a bool mask; NumPy reads an integer array as indices: use take)`);
    if (x.shape.length === 0) return ctx.fail('inputs.x', 'a 0-d array has nothing to select from (give a 1-d or larger array)');
    const nd = x.shape.length;
    const a0 = Number(ctx.params.axis ?? 0);
    // Checked for every form: x[:, m] of a 1-d x is NumPy's IndexError (too many indices).
    if (a0 < -nd || a0 >= nd) return ctx.fail('params.axis', `axis ${a0} is out of bounds for the ${nd}-d array x (give -${nd} to ${nd - 1})`);
    if (m.shape.length === 1 && nd > 1) return { out: alongAxis(ctx, x, m, a0 < 0 ? a0 + nd : a0) };
    const same = m.shape.length === x.shape.length && m.shape.every((n, d) => n === x.shape[d]);
    if (!same) return ctx.fail('inputs.mask', `boolean index of shape (${m.shape.join(', ')}) does not match the array's shape (${x.shape.join(', ')}) (NumPy raises IndexError)`);
    const chunks = [x.chunks[0], ...x.shape.slice(1).map((n) => [n])];
    const xs = materialize(rechunk(x, chunks, ctx, 'mask-x'), ctx, 'mask-x-block');
    const ms = materialize(rechunk(m, chunks, ctx, 'mask-m'), ctx, 'mask-m-block');
    const keys = chunks[0].map((_, i) => {
      const idx = [i, ...x.shape.slice(1).map(() => 0)];
      const key = ctx.key('select', [i]);
      const bytes = sizeOf(blockShape(chunks, idx)) * bytesPerElement(x.dtype);
      ctx.emit({ key, deps: [xs.block(idx).deps[0], ms.block(idx).deps[0]], spec: arrayOpSpec('mask-select', {}), resource: 'any', op: 'mask_select', outBytes: bytes, workBytes: 2 * bytes });
      return key;
    });
    return { out: fromKeys([UNKNOWN], [keys.map(() => UNKNOWN)], x.dtype, keys, ctx.nodeId, [ctx.nodeId]) };
  },
};

/** x[..., m] with a 1-D bool m along `axis` (in range) of an N-D x (see the header). */
function alongAxis(ctx: BuildContext, x: LazyArray, m: LazyArray, axis: number): LazyArray {
  if (m.shape[0] !== x.shape[axis]) return ctx.fail('inputs.mask', `boolean index of length ${m.shape[0]} does not match axis ${axis} of the array's shape (${x.shape.join(', ')}) (NumPy raises IndexError; set axis to the axis it selects)`);
  const xs = materialize(x, ctx, 'mask-x-block');
  const ms = materialize(rechunk(m, [x.chunks[axis]], ctx, 'mask-m'), ctx, 'mask-m-block');
  const chunks = x.chunks.map((c, d) => (d === axis ? c.map(() => UNKNOWN) : c));
  const keys = [...eachBlockIndex(x.chunks)].map((idx) => {
    const key = ctx.key('select', idx);
    const bytes = sizeOf(blockShape(x.chunks, idx)) * bytesPerElement(x.dtype);
    ctx.emit({ key, deps: [xs.block(idx).deps[0], ms.block([idx[axis]]).deps[0]], spec: arrayOpSpec('mask-select-axis', { axis }), resource: 'any', op: 'mask_select', outBytes: bytes, workBytes: 2 * bytes });
    return key;
  });
  return fromKeys(x.shape.map((n, d) => (d === axis ? UNKNOWN : n)), chunks, x.dtype, keys, ctx.nodeId, [ctx.nodeId]);
}

export const MASK_ARRAY_OPS: OpDef[] = [maskSelect];
