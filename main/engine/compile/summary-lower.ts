/**
 * Large array results as summaries computed on the workers, so no block travels to main:
 *
 *   stats(b)   = [min, max, sum, count] of block b            one task per block
 *   stats      = combine tree of the blocks' stats            fan-in SPLIT
 *   hist(b)    = counts over BINS equal bins of [min, max]    deps: block b and the combined stats
 *   hist       = combine tree (sums)
 *   corner     = the top-left 8 x 8 (per axis up to 8), assembled from the blocks it overlaps
 *                (block 0 alone unless chunks are smaller than 8)
 *   summary    = one bundle {stats, hist, corner}              the output's single key
 *
 * The semantics are those of results.ts `summarize` (NaN: skipped by min/max and the histogram,
 * propagated by the sum), so a small and a large array report alike. main/engine/run.ts turns
 * the bundle into an ArraySummary with `summaryFromBundle`.
 */
import { arrayOpSpec, type ArrayOpParams } from '../../../common/array-op-params';
import type { NDArray } from '../../../common/arrays';
import type { ArraySummary } from '../../../common/results';
import type { NodeOutput } from '../../../common/tasks';
import type { BuildContext, LazyArray } from '../ops/types';
import { materialize } from './array-lower';
import { blockIndices, blockOffset, blockShape } from './chunks';

export const SUMMARY_BINS = 20;
const SPLIT = 8;
const CORNER = 8;

function tree(keys: string[], ctx: BuildContext, name: string, op: 'summary-stats-combine' | 'summary-hist-combine', bytes: number): string {
  let level = keys;
  let depth = 0;
  while (level.length > 1) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += SPLIT) {
      const key = ctx.key(`${name}${depth}`, [i / SPLIT]);
      const group = level.slice(i, i + SPLIT);
      ctx.emit({ key, deps: group, spec: arrayOpSpec(op, {}), resource: 'any', op, outBytes: bytes, workBytes: bytes * group.length });
      next.push(key);
    }
    level = next;
    depth++;
  }
  return level[0];
}

/** Emits the summary tasks of `a` (materialising its blocks) and returns the node's output. */
export function summaryOutput(a: LazyArray, ctx: BuildContext, port: string): Extract<NodeOutput, { kind: 'array-summary' }> {
  const m = materialize(a, ctx, `${port}-block`);
  const idxs = blockIndices(m.chunks);
  const blocks = idxs.map((idx) => m.block(idx).deps[0]);
  const stats = tree(
    blocks.map((b, i) => {
      const key = ctx.key(`${port}-stats`, idxs[i]);
      ctx.emit({ key, deps: [b], spec: arrayOpSpec('summary-stats', {}), resource: 'any', op: 'summary-stats', outBytes: 32, workBytes: 32 });
      return key;
    }),
    ctx,
    `${port}-stats-combine`,
    'summary-stats-combine',
    32,
  );
  const hist = tree(
    blocks.map((b, i) => {
      const key = ctx.key(`${port}-hist`, idxs[i]);
      ctx.emit({ key, deps: [b, stats], spec: arrayOpSpec('summary-hist', { bins: SUMMARY_BINS }), resource: 'any', op: 'summary-hist', outBytes: 8 * SUMMARY_BINS, workBytes: 8 * SUMMARY_BINS });
      return key;
    }),
    ctx,
    `${port}-hist-combine`,
    'summary-hist-combine',
    8 * SUMMARY_BINS,
  );
  // The corner as an 'assemble' of the blocks overlapping it (the rechunk handler).
  const cshape = m.shape.map((s) => Math.min(s, CORNER));
  const deps: string[] = [];
  const pieces: ArrayOpParams<'assemble'>['pieces'] = [];
  idxs.forEach((idx, b) => {
    const off = blockOffset(m.chunks, idx);
    const bs = blockShape(m.chunks, idx);
    if (!off.every((o, d) => o < cshape[d])) return;
    const count = bs.map((s, d) => Math.min(s, cshape[d] - off[d]));
    if (count.some((c) => c <= 0)) return;
    pieces.push({ dep: deps.length, srcStart: bs.map(() => 0), count, dstStart: off });
    deps.push(blocks[b]);
  });
  const corner = ctx.key(`${port}-corner`);
  ctx.emit({ key: corner, deps, spec: arrayOpSpec('assemble', { shape: cshape, dtype: m.dtype, pieces }), resource: 'any', op: 'summary-corner', outBytes: 8 * CORNER ** 2, workBytes: 8 * CORNER ** 2 });
  const key = ctx.key(`${port}-summary`);
  ctx.emit({ key, deps: [stats, hist, corner], spec: arrayOpSpec('summary-bundle', {}), resource: 'any', op: 'summary', outBytes: 1024, workBytes: 1024 });
  return { kind: 'array-summary', key, shape: m.shape, dtype: m.dtype };
}

/** The ArraySummary from the 'summary-bundle' task's arrays. */
export function summaryFromBundle(arrays: Record<string, NDArray>): ArraySummary {
  const [min, max, sum, count] = Array.from(arrays.stats.data as Float64Array);
  const counts = Array.from(arrays.hist.data as Float64Array);
  const corner = arrays.corner;
  return {
    min,
    max,
    mean: count ? sum / count : NaN,
    histogram: { bins: counts.length, counts },
    corner: { shape: corner.shape, data: Array.from(corner.data as ArrayLike<number | bigint>, (x) => Number(x)) },
  };
}
