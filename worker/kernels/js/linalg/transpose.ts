/** Transpose of a 2-D array (a new row-major array). */
import type { NDArray } from '../../../../common/arrays';
import { check2d, fromMat, toMat, transposeMat } from './dense';

export function transpose(a: NDArray): NDArray {
  const dtype = check2d(a, 'transpose');
  return fromMat(transposeMat(toMat(a, 'transpose')), dtype);
}
