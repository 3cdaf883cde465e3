/**
 * Nodes that move data between blocks: rechunk, transpose and moveaxis. A transpose with `axes`
 * and moveaxis are views (viewAxes): each block's program reads its source block through a
 * permuted broadcast, which the backends fold into leaf strides, so nothing is copied until a
 * consumer computes.
 */
import { arrayOpSpec } from '../../../common/array-op-params';
import { bytesPerElement, sizeOf } from '../../../common/arrays';
import { fromKeys, materialize, viewAxes } from '../compile/array-lower';
import { blockIndices, blockShape, normalizeChunks } from '../compile/chunks';
import { rechunk } from '../compile/rechunk';
import { arrayInput, chunkSizes, nums } from './arrays-core';
import type { BuildContext, LazyArray, OpDef } from './types';

/** Axis numbers of an `nd`-d input, negative counting from the end (NumPy's), checked and made positive. */
function axisList(ctx: BuildContext, name: string, nd: number): number[] {
  return nums(ctx, name).map((a) => {
    if (!Number.isInteger(a) || a < -nd || a >= nd) return ctx.fail(`params.${name}`, `axis ${a} is out of bounds for the ${nd}-d input`);
    return a < 0 ? a + nd : a;
  });
}

/** x.transpose(perm): axis k of the result is axis perm[k] of x. */
function permuted(ctx: BuildContext, x: LazyArray, perm: number[], name: string): LazyArray {
  if (perm.length !== x.shape.length || new Set(perm).size !== perm.length) return ctx.fail(`params.${name}`, `(${perm.join(', ')}) is not a permutation of the ${x.shape.length} axes (NumPy: "axes don't match array")`);
  return viewAxes(x, perm);
}

const rechunkOp: OpDef = {
  spec: {
    op: 'rechunk',
    label: 'Rechunk',
    category: 'arrays',
    doc: 'New chunk sizes per axis; each new block is assembled from the old blocks it overlaps.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'chunks', kind: 'numbers', integer: true, exclusiveMin: 0, minLength: 1, required: true }],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    const per = chunkSizes(ctx, x.shape.length, 'the input');
    return { out: rechunk(x, normalizeChunks(x.shape, per), ctx) };
  },
};

const transpose: OpDef = {
  spec: {
    op: 'transpose',
    label: 'Transpose',
    category: 'arrays',
    doc: 'Reverses the axes (x.T), or permutes them as numpy.transpose(x, axes): axis k of the result is axis axes[k] of x (negative counts from the end).',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [{ name: 'axes', kind: 'numbers', integer: true, doc: 'a permutation of the axes, e.g. [2, 0, 1]; empty: reverse them' }],
  },
  build(ctx) {
    const input = arrayInput(ctx, 'x');
    const nd = input.shape.length;
    if (ctx.params.axes !== undefined && ctx.params.axes !== null) return { out: permuted(ctx, input, axisList(ctx, 'axes', nd), 'axes') };
    if (nd < 2) return { out: input };
    // 3-D and up reversed as a view; 2-D keeps its transpose tasks (and so its digests).
    if (nd > 2) return { out: viewAxes(input, input.shape.map((_, d) => nd - 1 - d)) };
    const x = materialize(input, ctx, 'src');
    const keys: string[] = [];
    const chunks = [...x.chunks].reverse();
    for (const idx of blockIndices(chunks)) {
      const srcIdx = [...idx].reverse();
      const key = ctx.key('transpose', idx);
      const bytes = sizeOf(blockShape(chunks, idx)) * bytesPerElement(x.dtype);
      ctx.emit({ key, deps: x.block(srcIdx).deps, spec: arrayOpSpec('transpose', {}), resource: 'any', op: 'transpose', outBytes: bytes, workBytes: 2 * bytes });
      keys.push(key);
    }
    return { out: fromKeys([...x.shape].reverse(), chunks, x.dtype, keys, ctx.nodeId, [ctx.nodeId]) };
  },
};

const moveaxis: OpDef = {
  spec: {
    op: 'moveaxis',
    label: 'Move axis',
    category: 'arrays',
    doc: 'numpy.moveaxis(x, source, destination): the source axes go to the destination positions, the others keep their order (negative counts from the end).',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [
      { name: 'source', kind: 'numbers', integer: true, minLength: 1, required: true },
      { name: 'destination', kind: 'numbers', integer: true, minLength: 1, required: true },
    ],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    const nd = x.shape.length;
    const src = axisList(ctx, 'source', nd);
    const dst = axisList(ctx, 'destination', nd);
    if (src.length !== dst.length) return ctx.fail('params.destination', `has ${dst.length} axes, source has ${src.length} (NumPy: they must have the same number of elements)`);
    if (new Set(src).size !== src.length) return ctx.fail('params.source', `repeats an axis: (${src.join(', ')})`);
    if (new Set(dst).size !== dst.length) return ctx.fail('params.destination', `repeats an axis: (${dst.join(', ')})`);
    // NumPy's construction: the remaining axes in order, then each source inserted at its destination (ascending).
    const perm = x.shape.map((_, d) => d).filter((d) => !src.includes(d));
    for (const [s, d] of src.map((s, i) => [s, dst[i]] as const).sort((a, b) => a[1] - b[1])) perm.splice(d, 0, s);
    return { out: permuted(ctx, x, perm, 'source') };
  },
};

export const SHAPE_ARRAY_OPS: OpDef[] = [rechunkOp, transpose, moveaxis];
