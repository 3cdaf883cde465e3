/**
 * Shared plumbing of the linear-algebra kernels: checking 2-D float inputs, and moving between
 * `NDArray` (row-major, float64 or float32) and the float64 working copies the kernels compute in.
 *
 * Every kernel computes in float64 whatever the input dtype, and rounds once on output: float32
 * results are then the float32 rounding of a float64 computation (more accurate than float32 BLAS,
 * so comparisons against other backends use float32 tolerances). Keeping the hot loops on one
 * array type also keeps V8's element access monomorphic.
 */
import type { DType, NDArray } from '../../../../common/arrays';

export type FloatDType = 'float64' | 'float32';

/** A float64 row-major matrix: the kernels' working form. */
export interface Mat {
  rows: number;
  cols: number;
  data: Float64Array;
}

export class LinalgError extends Error {
  override name = 'LinalgError';
}

/** Checks that `a` is a 2-D float array whose data matches its shape; `what` names it in errors. */
export function check2d(a: NDArray, what: string): FloatDType {
  if (a.shape.length !== 2) throw new LinalgError(`${what}: expected a 2-D array, got shape [${a.shape.join(', ')}]`);
  if (a.dtype !== 'float64' && a.dtype !== 'float32') throw new LinalgError(`${what}: dtype ${a.dtype} is not supported (float64, float32)`);
  const [r, c] = a.shape;
  if (!Number.isSafeInteger(r) || !Number.isSafeInteger(c) || r < 0 || c < 0) throw new LinalgError(`${what}: bad shape [${a.shape.join(', ')}]`);
  if (a.data.length !== r * c) throw new LinalgError(`${what}: shape [${r}, ${c}] needs ${r * c} elements, data has ${a.data.length}`);
  const ok = a.dtype === 'float64' ? a.data instanceof Float64Array : a.data instanceof Float32Array;
  if (!ok) throw new LinalgError(`${what}: dtype ${a.dtype} does not match its data (a ${a.data.constructor.name})`);
  return a.dtype;
}

/** The float64 working copy of a checked 2-D array (always a copy, so kernels may overwrite it). */
export function toMat(a: NDArray, what: string): Mat {
  check2d(a, what);
  return { rows: a.shape[0], cols: a.shape[1], data: Float64Array.from(a.data as Float64Array | Float32Array) };
}

/** Wraps a working matrix as an NDArray of `dtype` (float32 rounds once here). */
export function fromMat(m: Mat, dtype: FloatDType): NDArray {
  const data = dtype === 'float64' ? m.data : Float32Array.from(m.data);
  return { dtype, shape: [m.rows, m.cols], data };
}

/** The result dtype of combining inputs: float64 if any input is float64. */
export function resultDType(...dtypes: DType[]): FloatDType {
  return dtypes.every((d) => d === 'float32') ? 'float32' : 'float64';
}

/** Row-major transpose of a working matrix. */
export function transposeMat(m: Mat): Mat {
  const { rows, cols, data } = m;
  const out = new Float64Array(rows * cols);
  // Tiles keep both the reads and the writes within a few cache lines.
  const T = 32;
  for (let i0 = 0; i0 < rows; i0 += T) {
    const i1 = Math.min(i0 + T, rows);
    for (let j0 = 0; j0 < cols; j0 += T) {
      const j1 = Math.min(j0 + T, cols);
      for (let i = i0; i < i1; i++) {
        for (let j = j0; j < j1; j++) out[j * rows + i] = data[i * cols + j];
      }
    }
  }
  return { rows: cols, cols: rows, data: out };
}

/** Throws naming the first non-finite element: QR and SVD of such input have no meaning. */
export function requireFinite(m: Mat, what: string): void {
  const d = m.data;
  for (let k = 0; k < d.length; k++) {
    const x = d[k];
    if (x - x !== 0) throw new LinalgError(`${what}: non-finite value ${x} at [${Math.floor(k / m.cols)}, ${k % m.cols}]`);
  }
}
