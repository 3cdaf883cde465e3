/** Compares two ChunkValues: bit for bit, or within `rel` of max(|expected|, `scale`). */
import type { ChunkValue } from '../../../common/arrays';

/** The values to compare; int64 as numbers (the cases keep them below 2**53), an exact integer sum as the field `isum`. */
function arraysOf(v: ChunkValue): Record<string, ArrayLike<number>> {
  if (v.kind === 'array') {
    const d = v.array.data;
    return { data: d instanceof BigInt64Array ? Array.from(d, Number) : d };
  }
  if (v.kind !== 'partial') throw new Error(`cannot compare ${v.kind} values`);
  return v.partial.isum ? { ...v.partial.fields, isum: Array.from(v.partial.isum, Number) } : v.partial.fields;
}

/** Returns a description of the first mismatch, or null. */
export function mismatch(got: ChunkValue, want: ChunkValue, exact: boolean, rel: number, scale = 1): string | null {
  if (got.kind !== want.kind) return `kind ${got.kind} vs ${want.kind}`;
  const shapeOf = (v: ChunkValue): number[] => (v.kind === 'array' ? v.array.shape : v.kind === 'partial' ? v.partial.shape : []);
  const gs = shapeOf(got);
  const ws = shapeOf(want);
  if (gs.join() !== ws.join()) return `shape [${gs}] vs [${ws}]`;
  if (got.kind === 'array' && want.kind === 'array' && got.array.dtype !== want.array.dtype) return `dtype ${got.array.dtype} vs ${want.array.dtype}`;
  const g = arraysOf(got);
  const w = arraysOf(want);
  if (Object.keys(g).sort().join() !== Object.keys(w).sort().join()) return `fields ${Object.keys(g)} vs ${Object.keys(w)}`;
  for (const key of Object.keys(w)) {
    const a = g[key];
    const b = w[key];
    if (a.length !== b.length) return `${key}: length ${a.length} vs ${b.length}`;
    for (let i = 0; i < b.length; i++) {
      const x = a[i];
      const y = b[i];
      if (Object.is(x, y) || (x === y)) continue;
      if (Number.isNaN(x) && Number.isNaN(y)) continue;
      if (exact || !(Math.abs(x - y) <= rel * Math.max(Math.abs(y), scale))) return `${key}[${i}]: ${x} vs ${y}`;
    }
  }
  return null;
}
