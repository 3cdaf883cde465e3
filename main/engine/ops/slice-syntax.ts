/**
 * Parses NumPy-style slice text ("::2, 10:-10, 5") into per-axis (start, stop, step), normalised
 * against a shape. A small hand-written parser: user text is never evaluated.
 */
import type { AxisSlice } from '../compile/array-lower';

export interface RawSlice {
  start: number | null;
  stop: number | null;
  step: number | null;
  /** A single index (drops the axis in NumPy; kept as length 1 here and reported). */
  index: boolean;
}

const INT = /^-?\d+$/;

export function parseSliceText(text: string): RawSlice[] {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 1 && parts[0] === '') return [];
  return parts.map((p, i) => {
    const fields = p.split(':').map((f) => f.trim());
    if (fields.length > 3) throw new Error(`axis ${i}: '${p}' has more than two ':'`);
    for (const f of fields) if (f !== '' && !INT.test(f)) throw new Error(`axis ${i}: '${f}' is not an integer`);
    const num = (f: string | undefined) => (f === undefined || f === '' ? null : Number(f));
    if (fields.length === 1) {
      if (fields[0] === '') throw new Error(`axis ${i}: empty slice`);
      return { start: num(fields[0]), stop: null, step: null, index: true };
    }
    return { start: num(fields[0]), stop: num(fields[1]), step: num(fields[2]), index: false };
  });
}

/** Normalises slices against `shape` (missing axes take everything). Steps must be positive. */
export function normalizeSlices(raw: RawSlice[], shape: number[]): AxisSlice[] {
  if (raw.length > shape.length) throw new Error(`${raw.length} axes sliced but the array has ${shape.length}`);
  return shape.map((n, d) => {
    const r = raw[d];
    if (!r) return { start: 0, stop: n, step: 1 };
    const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + n : v, 0), n);
    if (r.index) {
      const i = r.start! < 0 ? r.start! + n : r.start!;
      if (i < 0 || i >= n) throw new Error(`axis ${d}: index ${r.start} out of range for length ${n}`);
      return { start: i, stop: i + 1, step: 1 };
    }
    const step = r.step ?? 1;
    if (step <= 0) throw new Error(`axis ${d}: step must be positive, got ${step}`);
    const start = r.start === null ? 0 : clamp(r.start);
    const stop = r.stop === null ? n : clamp(r.stop);
    return { start, stop: Math.max(start, stop), step };
  });
}
