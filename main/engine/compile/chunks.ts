/** Chunk arithmetic: normalising chunk sizes, block offsets and shapes, iterating the block grid. */

/** Chunk sizes of one axis of length `n` in blocks of `c` (the last may be short). */
export function axisChunks(n: number, c: number): number[] {
  if (n === 0) return [0];
  const out: number[] = [];
  for (let s = 0; s < n; s += c) out.push(Math.min(c, n - s));
  return out;
}

/** Most blocks one array may have: beyond it the graph would not fit the scheduler's memory. */
export const MAX_BLOCKS = 2_000_000;

export class TooManyBlocks extends Error {}

export function normalizeChunks(shape: number[], chunks: number[]): number[][] {
  // Count before enumerating: a huge shape with small chunks must be refused, not built.
  let blocks = 1;
  shape.forEach((n, d) => {
    const c = Math.min(chunks[d] ?? n, Math.max(n, 1));
    blocks *= Math.max(1, Math.ceil(n / c));
  });
  if (!(blocks <= MAX_BLOCKS)) throw new TooManyBlocks(`${blocks.toExponential(2)} chunks (more than ${MAX_BLOCKS}): use larger chunks`);
  return shape.map((n, d) => axisChunks(n, Math.min(chunks[d] ?? n, Math.max(n, 1))));
}

export function blockShape(chunks: number[][], idx: number[]): number[] {
  return chunks.map((c, d) => c[idx[d]]);
}

export function blockOffset(chunks: number[][], idx: number[]): number[] {
  return chunks.map((c, d) => {
    let s = 0;
    for (let i = 0; i < idx[d]; i++) s += c[i];
    return s;
  });
}

export function gridShape(chunks: number[][]): number[] {
  return chunks.map((c) => c.length);
}

/** All block indices in C order. */
export function blockIndices(chunks: number[][]): number[][] {
  return [...eachBlockIndex(chunks)];
}

/** Block indices in C order, one at a time: a 100 000-block grid is walked without building the list first. */
export function* eachBlockIndex(chunks: number[][]): Generator<number[], void, void> {
  const grid = gridShape(chunks);
  const nd = grid.length;
  if (nd === 0) {
    yield [];
    return;
  }
  if (grid.some((g) => g === 0)) return;
  const idx = new Array<number>(nd).fill(0);
  for (;;) {
    yield [...idx];
    let d = nd - 1;
    while (d >= 0) {
      if (++idx[d] < grid[d]) break;
      idx[d] = 0;
      d--;
    }
    if (d < 0) return;
  }
}

export function fullRegion(shape: number[]) {
  return { start: shape.map(() => 0), step: shape.map(() => 1), count: [...shape] };
}
