/** Nodes that move data between blocks: rechunk and transpose. */
import { arrayOpSpec } from '../../../common/array-op-params';
import { bytesPerElement, sizeOf } from '../../../common/arrays';
import { fromKeys, materialize } from '../compile/array-lower';
import { blockIndices, blockShape, normalizeChunks } from '../compile/chunks';
import { rechunk } from '../compile/rechunk';
import { arrayInput, chunkSizes, nums } from './arrays-core';
import type { OpDef } from './types';

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
    doc: 'Reverses the axes (x.T).',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'array' }],
    params: [],
  },
  build(ctx) {
    const input = arrayInput(ctx, 'x');
    if (input.shape.length < 2) return { out: input };
    if (input.shape.length > 2) ctx.fail('inputs.x', `transpose takes 1-D or 2-D arrays, got ${input.shape.length}-D`);
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

export const SHAPE_ARRAY_OPS: OpDef[] = [rechunkOp, transpose];
