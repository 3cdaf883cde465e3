/**
 * Validity as one byte per row (1 = present), which the kernels index directly, and its
 * conversion to and from Arrow's bit-packed null bitmaps (LSB first, starting at a bit offset).
 */
import type { Data } from 'apache-arrow';

/** Byte-per-row validity of `data`, or null when it has no nulls. */
export function validBytes(data: Data): Uint8Array | null {
  const bm = data.nullBitmap;
  if (!bm || bm.length === 0 || data.nullCount === 0) return null;
  const n = data.length;
  const off = data.offset;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const j = off + i;
    out[i] = (bm[j >> 3] >> (j & 7)) & 1;
  }
  return out;
}

/** Bit-packs byte-per-row validity; returns the bitmap and the null count. */
export function packValid(valid: Uint8Array, n: number): { bitmap: Uint8Array; nullCount: number } {
  const bitmap = new Uint8Array(((n + 63) & ~63) >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (valid[i]) bitmap[i >> 3] |= 1 << (i & 7);
    else nulls++;
  }
  return { bitmap, nullCount: nulls };
}

/** Bit `i` (after `offset`) of an Arrow bitmap. */
export function bitAt(bm: Uint8Array, offset: number, i: number): number {
  const j = offset + i;
  return (bm[j >> 3] >> (j & 7)) & 1;
}
