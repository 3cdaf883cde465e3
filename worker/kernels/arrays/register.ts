/** Array task handlers beyond fused programs: assembling rechunked blocks, transposing blocks. */
import { allocate } from '../../../common/arrays';
import { assemble } from './assemble';
import { registerArrayOp } from '../../handlers';
import { transpose } from '../js/linalg';
import './linalg-handlers';
import './npy-handlers';
import './randomized-handlers';
import './numpy-handlers';
import './summary-handlers';

registerArrayOp('assemble', async (params, inputs) => {
  const arrays = inputs.map((v, i) => {
    if (v.kind !== 'array') throw new Error(`assemble: input ${i} is a ${v.kind}`);
    return v.array;
  });
  return { value: { kind: 'array', array: assemble(params.shape, params.dtype, params.pieces, arrays) }, backend: 'js' };
});

registerArrayOp('transpose', async (_params, inputs) => {
  const v = inputs[0];
  if (v?.kind !== 'array') throw new Error('transpose: input is not an array');
  return { value: { kind: 'array', array: transpose(v.array) }, backend: 'js' };
});

// x[mask] of one block: the values where the mask is True, in C order (main/engine/ops/arrays-mask.ts).
registerArrayOp('mask-select', async (_params, inputs) => {
  const [x, m] = inputs;
  if (x?.kind !== 'array' || m?.kind !== 'array') throw new Error('mask-select: inputs are not two arrays');
  const mask = m.array.data;
  if (!(mask instanceof Uint8Array)) throw new Error(`mask-select: the mask is ${m.array.dtype}, not bool`);
  if (mask.length !== x.array.data.length) throw new Error(`mask-select: mask of ${mask.length} elements for a block of ${x.array.data.length}`);
  let n = 0;
  for (let i = 0; i < mask.length; i++) n += mask[i] ? 1 : 0;
  const out = allocate(x.array.dtype, n);
  const src = x.array.data;
  for (let i = 0, k = 0; i < mask.length; i++) if (mask[i]) out[k++] = src[i];
  return { value: { kind: 'array', array: { dtype: x.array.dtype, shape: [n], data: out } }, backend: 'js' };
});

// A reduction without identity over a selection that turned out empty fails as NumPy raises
// (main/engine/ops/arrays-mask.ts): input 1 is its element count.
registerArrayOp('require-elements', async ({ error }, inputs) => {
  const [v, n] = inputs;
  if (v?.kind !== 'array' || n?.kind !== 'array') throw new Error('require-elements: inputs are not two arrays');
  if (Number(n.array.data[0]) === 0) throw new Error(error);
  return { value: v, backend: 'js' };
});
