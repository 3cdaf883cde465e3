/**
 * The numbers behind the benchmark chart: per configuration its median, min and max over the
 * timed repetitions (the whiskers) and its speedup against one CPU core (1-core median / median),
 * and the x scale that fits the largest max. Pure, so the chart and its tests share it.
 */
import type { BenchmarkRecord } from '../../common/store-types';

export interface BenchRow {
  name: string;
  virtual: boolean;
  available: boolean;
  reason: string | null;
  median: number | null;
  min: number | null;
  max: number | null;
  speedup: number | null;
  workers: number;
}

export function benchRows(rec: BenchmarkRecord): BenchRow[] {
  const base = rec.configs.find((c) => c.name === '1 CPU core' && c.available && c.median !== null)?.median ?? null;
  return rec.configs.map((c) => {
    const ok = c.available && c.median !== null && c.times.length > 0;
    return {
      name: c.name,
      virtual: c.virtual,
      available: ok,
      reason: c.available ? (ok ? null : 'not run') : c.unavailableReason,
      median: ok ? c.median : null,
      min: ok ? Math.min(...c.times) : null,
      max: ok ? Math.max(...c.times) : null,
      speedup: ok && base !== null && c.median! > 0 ? base / c.median! : null,
      workers: c.workers,
    };
  });
}

/** A "nice" upper bound for the x axis (1, 2 or 5 × 10^k) at or above the largest max. */
export function axisMax(rows: BenchRow[]): number {
  const m = Math.max(1e-3, ...rows.map((r) => r.max ?? 0));
  const p = 10 ** Math.floor(Math.log10(m));
  for (const k of [1, 2, 2.5, 5, 10]) if (k * p >= m) return k * p;
  return 10 * p;
}

/** Earlier benchmarks of the same workflow (by name: a size change makes a new version), newest first. */
export function sameWorkflow(list: BenchmarkRecord[], rec: BenchmarkRecord): BenchmarkRecord[] {
  return list.filter((b) => b.workflowName === rec.workflowName).sort((a, b) => b.created - a.created);
}
