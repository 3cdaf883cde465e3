/** Scaling per-trial training curves (value by epoch) into canvas pixels. */
export interface CurvePoint {
  epoch: number;
  value: number;
}

export interface Plot {
  width: number;
  height: number;
  pad: number;
}

export interface Scale {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  x(epoch: number): number;
  y(value: number): number;
}

/** Axis ranges covering every finite point; a flat or empty range is widened so nothing divides by 0. */
export function curveScale(series: readonly (readonly CurvePoint[])[], plot: Plot): Scale {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const s of series)
    for (const p of s) {
      if (!Number.isFinite(p.value) || !Number.isFinite(p.epoch)) continue;
      if (p.epoch < x0) x0 = p.epoch;
      if (p.epoch > x1) x1 = p.epoch;
      if (p.value < y0) y0 = p.value;
      if (p.value > y1) y1 = p.value;
    }
  if (x0 > x1) (x0 = 0), (x1 = 1);
  if (y0 > y1) (y0 = 0), (y1 = 1);
  if (x0 === x1) (x0 -= 1), (x1 += 1);
  if (y0 === y1) {
    const d = Math.abs(y0) * 0.05 || 0.5;
    y0 -= d;
    y1 += d;
  }
  const { width, height, pad } = plot;
  const w = Math.max(1, width - 2 * pad), h = Math.max(1, height - 2 * pad);
  return {
    x0, x1, y0, y1,
    x: (e) => pad + ((e - x0) / (x1 - x0)) * w,
    y: (v) => pad + h - ((v - y0) / (y1 - y0)) * h,
  };
}

/** Pixel points of one curve (non-finite values skipped), in epoch order. */
export function toPixels(s: readonly CurvePoint[], scale: Scale): [number, number][] {
  return [...s]
    .filter((p) => Number.isFinite(p.value))
    .sort((a, b) => a.epoch - b.epoch)
    .map((p) => [scale.x(p.epoch), scale.y(p.value)]);
}

/** A distinct colour per series index. */
export const seriesColor = (i: number): string => `hsl(${(i * 137.508) % 360}, 65%, 45%)`;
