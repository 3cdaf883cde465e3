/**
 * Result digests and content hashes.
 *
 * A result digest is sha256 over the canonical JSON (common/canonical-json.ts) of a run's results
 * with every number rounded to DIGEST_SIGNIFICANT_DIGITS = 10 significant digits. Tolerance: two
 * results get the same digest when each of their numbers agrees to 10 significant digits, so float
 * noise from a different summation order (a GPU tree reduction against a CPU loop, typically
 * differing from the 13th digit on in float64) does not count as a different answer, while an
 * error in the 6th digit does.
 *
 * Float32 lineage (docs/reproducibility.md): a result computed from float32 data anywhere upstream
 * (a float32 matmul summed in float64, say) carries `digestDigits: FLOAT32_DIGEST_DIGITS` (set by
 * the compiler, main/engine/compile/precision.ts) and its numbers are rounded to 6 significant
 * digits instead: float32 keeps about 7, and a block product's sum order (cuBLAS, BLAS, the js
 * loop, one gemm or k blocks) moves the 8th digit. Every digest, local, Dask, `bench` and
 * `replay`, goes through `digestOf` (main/api/run-record.ts), which applies it.
 *
 * Caveat, inherent to any rounding digest: two numbers that straddle a rounding boundary (…4999…
 * against …5000… in the 11th digit) round apart and give different digests even though they are
 * very close.
 *
 * Uses node:crypto: main and worker only. The renderer gets digests from the store's records; the
 * rounding itself is pure and lives in canonical-json.ts.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/** Significant digits kept from every number before a result digest is taken. */
export const DIGEST_SIGNIFICANT_DIGITS = 10;

/**
 * Significant digits kept from the numbers of a result with float32 lineage: float32 has 24 bits
 * (7.2 digits), and sums over a float32 product differ in the 8th between summation orders.
 */
export const FLOAT32_DIGEST_DIGITS = 6;

/** Human-readable tolerance, shown next to digests in the UI and the CLI. */
export const DIGEST_TOLERANCE_TEXT = `numbers rounded to ${DIGEST_SIGNIFICANT_DIGITS} significant digits (${FLOAT32_DIGEST_DIGITS} for results computed from float32 data)`;

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** sha256 (hex) of the canonical JSON of `results`, numbers rounded to `digits` significant digits. */
export function resultDigest(results: unknown, digits: number = DIGEST_SIGNIFICANT_DIGITS): string {
  return sha256Hex(canonicalJson(results, { digits }));
}

/** sha256 (hex) of the exact canonical JSON of `value`: the identity of a workflow version. */
export function contentHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
