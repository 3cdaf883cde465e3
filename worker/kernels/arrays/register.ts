/** Array task handlers beyond fused programs: assembling rechunked blocks, transposing blocks. */
import type { DType, NDArray } from '../../../common/arrays';
import { allocate, sizeOf, stridesOf } from '../../../common/arrays';
import { registerHandler } from '../../handlers';
import { transpose } from '../js/linalg';
import './linalg-handlers';
import './npy-handlers';
import './randomized-handlers';
import './numpy-handlers';
import './summary-handlers';

interface Piece {
  dep: number;
  srcStart: number[];
  count: number[];
  dstStart: number[];
}

/** Copies each piece's region of its source block into the new block. */
export function assemble(shape: number[], dtype: DType, pieces: Piece[], inputs: NDArray[]): NDArray {
  const out = allocate(dtype, sizeOf(shape));
  const os = stridesOf(shape);
  for (const p of pieces) {
    const src = inputs[p.dep];
    const ss = stridesOf(src.shape);
    const n = sizeOf(p.count);
    const nd = shape.length;
    for (let k = 0; k < n; k++) {
      let r = k;
      let si = 0;
      let di = 0;
      for (let d = nd - 1; d >= 0; d--) {
        const i = r % p.count[d];
        r = Math.floor(r / p.count[d]);
        si += (p.srcStart[d] + i) * ss[d];
        di += (p.dstStart[d] + i) * os[d];
      }
      (out as Float64Array)[di] = (src.data as Float64Array)[si];
    }
  }
  return { dtype, shape, data: out };
}

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
