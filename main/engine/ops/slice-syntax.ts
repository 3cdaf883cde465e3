/**
 * Parses NumPy-style index text ("::2, 10:-10, 5", "..., None, ::-1") and normalises it against a
 * shape as NumPy's basic indexing does: an integer picks one element and drops its axis, a slice
 * keeps the axis (any non-zero step, negative ones walk it backwards), `None` (or `newaxis`) adds
 * an axis of length 1, and one `...` stands for as many full slices as the other items leave.
 * A small hand-written parser: user text is never evaluated.
 */

export type IndexItem =
  | { kind: 'index'; at: number }
  | { kind: 'slice'; start: number | null; stop: number | null; step: number | null }
  | { kind: 'newaxis' }
  | { kind: 'ellipsis' };

/** The elements one source axis keeps: `start + k * step` for `k` in `[0, count)`. */
export interface AxisSlice {
  start: number;
  step: number;
  count: number;
}

export interface NormalizedIndex {
  /** One per source axis; an axis an integer picks has count 1. */
  axes: AxisSlice[];
  /** For each output axis, the source axis it shows, or -1 for a new axis (`None`). */
  layout: number[];
}

const INT = /^[+-]?\d+$/;

/**
 * What a Dask user may type that is advanced, not basic, indexing: an integer list has its own
 * node; a boolean mask selects a data-dependent number of elements (dask's unknown NaN chunks),
 * which a graph planned from known shapes cannot express yet.
 */
function advancedIndexRefusal(text: string): string | null {
  if (/[<>=!&|~]/.test(text)) return `'${text}' looks like a boolean mask (x[x > 0]): selecting by a mask has a data-dependent size (dask's unknown chunks) and is not supported; use a comparison with where, or reduce the mask (sum counts it)`;
  if (/[[\]]/.test(text)) return `'${text}' is an integer list (fancy indexing): use the take node (indices, axis)`;
  return null;
}

export function parseSliceText(text: string): IndexItem[] {
  const advanced = advancedIndexRefusal(text);
  if (advanced) throw new Error(advanced);
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 1 && parts[0] === '') return [];
  // A trailing comma is allowed, as in Python ("3," is the tuple (3,)).
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  let ellipses = 0;
  return parts.map((p, i): IndexItem => {
    if (p === 'None' || p === 'newaxis' || p === 'np.newaxis') return { kind: 'newaxis' };
    if (p === '...' || p === 'Ellipsis') {
      if (++ellipses > 1) throw new Error(`item ${i}: an index can only have a single ellipsis ('...')`);
      return { kind: 'ellipsis' };
    }
    const fields = p.split(':').map((f) => f.trim());
    if (fields.length > 3) throw new Error(`item ${i}: '${p}' has more than two ':'`);
    for (const f of fields) if (f !== '' && !INT.test(f)) throw new Error(`item ${i}: '${f}' is not an integer, None or '...'`);
    const num = (f: string | undefined) => (f === undefined || f === '' ? null : Number(f));
    if (fields.length === 1) {
      if (fields[0] === '') throw new Error(`item ${i}: empty index`);
      return { kind: 'index', at: Number(fields[0]) };
    }
    const step = num(fields[2]);
    if (step === 0) throw new Error(`item ${i}: slice step cannot be zero`);
    return { kind: 'slice', start: num(fields[0]), stop: num(fields[1]), step };
  });
}

/** Python's slice.indices(n) followed by the element count: NumPy's bounds for any step sign. */
export function sliceIndices(start: number | null, stop: number | null, step: number | null, n: number): AxisSlice {
  const s = step ?? 1;
  const [lo, hi] = s > 0 ? [0, n] : [-1, n - 1];
  const fix = (v: number | null, dflt: number) => {
    if (v === null) return dflt;
    const w = v < 0 ? v + n : v;
    return Math.min(Math.max(w, lo), hi);
  };
  const a = fix(start, s > 0 ? 0 : n - 1);
  const b = fix(stop, s > 0 ? n : -1);
  const count = s > 0 ? Math.max(0, Math.ceil((b - a) / s)) : Math.max(0, Math.ceil((a - b) / -s));
  // An empty selection starts at 0, so no region ever points outside its array.
  return count === 0 ? { start: 0, step: s, count: 0 } : { start: a, step: s, count };
}

/** Normalises parsed items against `shape` (axes the items do not reach are taken whole). */
export function normalizeIndex(items: IndexItem[], shape: number[]): NormalizedIndex {
  const consuming = items.filter((it) => it.kind === 'index' || it.kind === 'slice').length;
  if (consuming > shape.length) throw new Error(`too many indices: ${consuming} for an array of ${shape.length} dimension${shape.length === 1 ? '' : 's'}`);
  const full: IndexItem = { kind: 'slice', start: null, stop: null, step: null };
  const expanded: IndexItem[] = [];
  for (const it of items) {
    if (it.kind === 'ellipsis') for (let k = 0; k < shape.length - consuming; k++) expanded.push(full);
    else expanded.push(it);
  }
  const used = expanded.filter((it) => it.kind !== 'newaxis').length;
  for (let k = used; k < shape.length; k++) expanded.push(full);
  const axes: AxisSlice[] = [];
  const layout: number[] = [];
  for (const it of expanded) {
    if (it.kind === 'newaxis') {
      layout.push(-1);
      continue;
    }
    const d = axes.length;
    const n = shape[d];
    if (it.kind === 'index') {
      const i = it.at < 0 ? it.at + n : it.at;
      if (i < 0 || i >= n) throw new Error(`index ${it.at} is out of bounds for axis ${d} with size ${n}`);
      axes.push({ start: i, step: 1, count: 1 });
    } else if (it.kind === 'slice') {
      axes.push(sliceIndices(it.start, it.stop, it.step, n));
      layout.push(d);
    }
  }
  return { axes, layout };
}
