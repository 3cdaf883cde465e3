/** Array task handlers beyond fused programs: assembling rechunked blocks, transposing blocks. */
import type { DType } from '../../../common/arrays';
import { assemble, type Piece } from './assemble';
import { registerHandler } from '../../handlers';
import { transpose } from '../js/linalg';
import './linalg-handlers';
import './npy-handlers';
import './randomized-handlers';
import './numpy-handlers';
import './summary-handlers';

registerHandler('array-op', 'assemble', async (params, inputs) => {
  const arrays = inputs.map((v, i) => {
    if (v.kind !== 'array') throw new Error(`assemble: input ${i} is a ${v.kind}`);
    return v.array;
  });
  return { value: { kind: 'array', array: assemble(params.shape as number[], params.dtype as DType, params.pieces as Piece[], arrays) }, backend: 'js' };
});

registerHandler('array-op', 'transpose', async (_params, inputs) => {
  const v = inputs[0];
  if (v?.kind !== 'array') throw new Error('transpose: input is not an array');
  return { value: { kind: 'array', array: transpose(v.array) }, backend: 'js' };
});
