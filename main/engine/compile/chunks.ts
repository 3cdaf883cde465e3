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

/**
 * Start of each chunk of one axis (prefix sums), computed once per chunk list: summing the sizes
 * before a block on every call made a 1000 x 1000 grid's offsets cost 10^9 additions.
 */
const offsetsOf = new WeakMap<number[], number[]>();
export function axisOffsets(cs: number[]): number[] {
  let offs = offsetsOf.get(cs);
  if (!offs) {
    offs = new Array<number>(cs.length);
    let s = 0;
    for (let i = 0; i < cs.length; i++) {
      offs[i] = s;
      s += cs[i];
    }
    offsetsOf.set(cs, offs);
  }
  return offs;
}

export function blockOffset(chunks: number[][], idx: number[]): number[] {
  return chunks.map((c, d) => axisOffsets(c)[idx[d]]);
}

/**
 * Block shapes of one grid as shared, frozen arrays: a million-block grid has a handful of
 * distinct block shapes, so its tasks' programs hold references to them rather than a million
 * copies (issue 29: a million-task compile within 1 GB). Blocks come in C order, so the last
 * shape handed out is almost always the next one.
 */
export function sharedBlockShapes(chunks: number[][]): (idx: number[]) => number[] {
  let last: number[] | null = null;
  const seen = new Map<string, number[]>();
  return (idx) => {
    if (last && last.every((n, d) => n === chunks[d][idx[d]])) return last;
    const shape = blockShape(chunks, idx);
    const key = shape.join(',');
    let got = seen.get(key);
    if (!got) {
      Object.freeze(shape);
      seen.set(key, shape);
      got = shape;
    }
    last = got;
    return got;
  };
}

/** The deps of a block that reads no task output (generators): one frozen empty list for all. */
export const NO_DEPS: string[] = [];
Object.freeze(NO_DEPS);

/** A frozen [1, 1, ...] of `nd` ones, one per rank: the unit step every full-block region shares. */
const unitSteps: number[][] = [];
export function unitStep(nd: number): number[] {
  let s = unitSteps[nd];
  if (!s) {
    s = new Array<number>(nd).fill(1);
    Object.freeze(s);
    unitSteps[nd] = s;
  }
  return s;
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
  return { start: shape.map(() => 0), step: unitStep(shape.length), count: [...shape] };
}
