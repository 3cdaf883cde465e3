/**
 * Re-blocking a lazy array that reads no task output (generators and elementwise work on them):
 * its leaves are addressed by global element index (random by (seed, index), docs/random.md), so
 * any chunking computes the same numbers and a new one costs nothing, unlike `rechunk`, which
 * materialises the old blocks first. Block 0's program restricted to a region anywhere in the
 * array is that region's program: restricting composes affine regions (restrict.ts), and block 0
 * starts at the array's origin.
 */
import type { LazyArray } from '../ops/types';
import { blockOffset, blockShape } from './chunks';
import { restrictExpr } from './restrict';

/** `a` in `chunks`, or null when its blocks read task outputs (then only `rechunk` can). */
export function reblockLazy(a: LazyArray, chunks: number[][]): LazyArray | null {
  if (a.shape.some((n) => n === 0)) return null;
  const first = a.block(a.chunks.map(() => 0));
  if (first.deps.length > 0) return null;
  return {
    ...a,
    chunks,
    block(idx) {
      const count = blockShape(chunks, idx);
      const expr = restrictExpr(first.expr, { start: blockOffset(chunks, idx), step: count.map(() => 1), count });
      return { expr, deps: [] };
    },
  };
}
