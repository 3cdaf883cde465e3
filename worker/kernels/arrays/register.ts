/** Array task handlers beyond fused programs: assembling rechunked blocks, transposing blocks. */
import { assemble } from './assemble';
import { registerArrayOp } from '../../handlers';
import { transpose } from '../js/linalg';
import './linalg-handlers';
import './mask-handlers';
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
