/**
 * Scaling a worker's samples (utilisation, memory) into a small SVG chart: time runs from the
 * oldest sample within the window to the newest, utilisation over 0..100 %, memory over 0..max(limit, peak)
 * so the limit line is always inside the chart. Pure: the panel only draws what this returns.
 */
import type { WorkerSample } from '../../common/api';

export interface ChartBox {
  width: number;
  height: number;
  /** Time shown, ending at the newest sample. */
  windowMs: number;
}

export interface UsageChart {
  /** SVG polyline points, "x,y x,y ...", oldest first; empty with fewer than two samples in the window. */
  util: string;
  mem: string;
  /** Pixel y of the memory limit line. */
  limitY: number;
  /** The memory value at the top of the chart (bytes). */
  memTop: number;
  /** Samples inside the window. */
  points: number;
}

const clamp01 = (v: number) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);
const fmt = (v: number) => (Math.round(v * 10) / 10).toString();

export function usageChart(samples: readonly WorkerSample[], memoryLimit: number, box: ChartBox): UsageChart {
  const { width, height, windowMs } = box;
  const end = samples.length ? samples[samples.length - 1].t : 0;
  const inWindow = samples.filter((s) => s.t >= end - windowMs);
  const peak = Math.max(0, ...inWindow.map((s) => (Number.isFinite(s.memBytes) ? s.memBytes : 0)));
  // 5 % headroom above the limit (or the peak, if a reading ever exceeds it) keeps both lines visible.
  const memTop = Math.max(memoryLimit, peak, 1) * 1.05;
  // The axis spans the samples there are, up to the window: a fresh app fills the chart too.
  const start = inWindow.length ? inWindow[0].t : end;
  const span = Math.max(1, end - start);
  const x = (t: number) => ((t - start) / span) * width;
  const y = (frac: number) => height - clamp01(frac) * height;
  const line = (value: (s: WorkerSample) => number) => (inWindow.length < 2 ? '' : inWindow.map((s) => `${fmt(x(s.t))},${fmt(y(value(s)))}`).join(' '));
  return {
    util: line((s) => s.util),
    mem: line((s) => s.memBytes / memTop),
    limitY: y(memoryLimit / memTop),
    memTop,
    points: inWindow.length,
  };
}
