/**
 * A @ B (+ C0) on the worker's first backend with a matmul (cuBLAS, BLAS / blocked C++) when both
 * are float arrays of one dtype, else the js kernel; says which one ran, for the task's record.
 */
import type { NDArray } from '../../../common/arrays';
import type { HandlerContext } from '../../handlers';
import { matmul } from '../js/linalg';

export async function backendMatmul(ctx: HandlerContext, a: NDArray, b: NDArray, c0?: NDArray): Promise<{ out: NDArray; backend: string }> {
  const be = ctx.backends.find((x) => x.matmul);
  if (be?.matmul && a.dtype === b.dtype && (a.dtype === 'float64' || a.dtype === 'float32')) return { out: await be.matmul(a, b, c0), backend: be.name };
  return { out: matmul(a, b, c0), backend: 'js' };
}
