/**
 * Rechunking: each new block is assembled from the regions of the old blocks it overlaps
 * (an 'assemble' task), as dask.array.rechunk does for small graphs.
 */
import { arrayOpSpec, type ArrayOpParams } from '../../../common/array-op-params';
import { bytesPerElement, sizeOf } from '../../../common/arrays';
import type { BuildContext, LazyArray } from '../ops/types';
import { fromKeys, materialize } from './array-lower';
import { blockIndices, blockOffset, blockShape, gridShape } from './chunks';

function overlaps(cs: number[], lo: number, hi: number): Array<{ i: number; from: number; to: number; off: number }> {
  const out: Array<{ i: number; from: number; to: number; off: number }> = [];
  let off = 0;
  cs.forEach((c, i) => {
    const a = Math.max(lo, off);
    const b = Math.min(hi, off + c);
    if (a < b) out.push({ i, from: a, to: b, off });
    off += c;
  });
  return out;
}

export function sameChunks(a: number[][], b: number[][]): boolean {
  return a.length === b.length && a.every((c, d) => c.length === b[d].length && c.every((x, i) => x === b[d][i]));
}

export function rechunk(a: LazyArray, chunks: number[][], ctx: BuildContext, name = 'rechunk'): LazyArray {
  if (sameChunks(a.chunks, chunks)) return a;
  const src = materialize(a, ctx, `${name}-src`);
  const srcKeys = blockIndices(src.chunks).map((idx) => src.block(idx).deps[0]);
  const grid = gridShape(src.chunks);
  const keys: string[] = [];
  for (const idx of blockIndices(chunks)) {
    const shape = blockShape(chunks, idx);
    const start = blockOffset(chunks, idx);
    const perAxis = shape.map((n, d) => overlaps(src.chunks[d], start[d], start[d] + n));
    const deps: string[] = [];
    const pieces: ArrayOpParams<'assemble'>['pieces'] = [];
    const combos: number[][] = [[]];
    for (const ax of perAxis) {
      const next: number[][] = [];
      for (const c of combos) for (let k = 0; k < ax.length; k++) next.push([...c, k]);
      combos.splice(0, combos.length, ...next);
    }
    for (const combo of combos) {
      const parts = combo.map((k, d) => perAxis[d][k]);
      let flat = 0;
      for (let d = 0; d < grid.length; d++) flat = flat * grid[d] + parts[d].i;
      deps.push(srcKeys[flat]);
      pieces.push({ dep: deps.length - 1, srcStart: parts.map((p) => p.from - p.off), count: parts.map((p) => p.to - p.from), dstStart: parts.map((p, d) => p.from - start[d]) });
    }
    const key = ctx.key(name, idx);
    const bytes = sizeOf(shape) * bytesPerElement(a.dtype);
    ctx.emit({ key, deps, spec: arrayOpSpec('assemble', { shape, dtype: a.dtype, pieces }), resource: 'any', op: 'rechunk', outBytes: bytes, workBytes: bytes * 2 });
    keys.push(key);
  }
  return fromKeys(a.shape, chunks, a.dtype, keys, ctx.nodeId, [ctx.nodeId]);
}
