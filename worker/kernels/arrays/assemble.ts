/**
 * Assembling a block from regions of other blocks: what a rechunk's tasks and the npy save's
 * gather do. Its own module so the handler files that use it (register.ts, npy-handlers.ts)
 * do not import each other.
 */
import type { DType, NDArray } from '../../../common/arrays';
import { allocate, sizeOf, stridesOf } from '../../../common/arrays';
import type { ArrayOpParams } from '../../../common/array-op-params';

export type Piece = ArrayOpParams<'assemble'>['pieces'][number];


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
