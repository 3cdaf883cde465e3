/**
 * Float32 lineage for result digests (common/digest.ts, docs/reproducibility.md): a node's values
 * carry float32 rounding when the node makes a float32 array or scalar, or reads a node that does.
 * A float32 matmul summed in float64 is such a value: its float64 total still moves in the 8th
 * digit with the block products' summation order (cuBLAS, BLAS, the js loop; one gemm or k
 * blocks), so its digest keeps FLOAT32_DIGEST_DIGITS instead of the default.
 */
import { FLOAT32_DIGEST_DIGITS } from '../../../common/digest';
import type { LazyValue } from '../ops/types';

/** Whether a node whose outputs are `out`, reading nodes of which `readsFloat32` says any is float32, has float32 lineage. */
export function hasFloat32Lineage(out: Record<string, LazyValue>, readsFloat32: boolean): boolean {
  return readsFloat32 || Object.values(out).some((v) => v.kind !== 'opaque' && v.dtype === 'float32');
}

/** The `digestDigits` member a node output gets: present only for float32 lineage. */
export function digestDigitsOf(float32: boolean): { digestDigits?: number } {
  return float32 ? { digestDigits: FLOAT32_DIGEST_DIGITS } : {};
}
