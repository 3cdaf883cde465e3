/**
 * Benchmark figures, pure: median and spread of repetition times, whether the digests agree, and
 * the slowdown check against an earlier benchmark of the same workflow on the same machine.
 */
import type { BenchmarkConfigRecord, BenchmarkRecord, Slowdown } from '../../common/store-types';

/** A configuration whose median grew by more than this fraction is flagged as a slowdown. */
export const SLOWDOWN_THRESHOLD = 0.1;

export function median(times: readonly number[]): number | null {
  if (times.length === 0) return null;
  const s = [...times].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** (max - min) / median: the relative width of the repetitions; 0 for one repetition. */
export function spread(times: readonly number[]): number | null {
  const m = median(times);
  if (m === null) return null;
  if (m === 0) return 0;
  return (Math.max(...times) - Math.min(...times)) / m;
}

/** True when every available configuration has a digest and they are all equal. */
export function digestsAgree(configs: readonly Pick<BenchmarkConfigRecord, 'available' | 'digest'>[]): boolean {
  const available = configs.filter((c) => c.available);
  if (available.length === 0) return false;
  const first = available[0].digest;
  return first !== null && available.every((c) => c.digest === first);
}

/**
 * Configurations of `current` whose median is more than `threshold` slower than the same
 * configuration of `previous`. Empty when there is no previous benchmark or it was taken on
 * another machine (times from different hardware are not comparable).
 */
export function findSlowdowns(
  current: Pick<BenchmarkRecord, 'machine' | 'configs'>,
  previous: Pick<BenchmarkRecord, 'machine' | 'configs'> | undefined,
  threshold: number = SLOWDOWN_THRESHOLD,
): Slowdown[] {
  if (!previous || previous.machine !== current.machine) return [];
  const out: Slowdown[] = [];
  for (const c of current.configs) {
    const p = previous.configs.find((x) => x.name === c.name);
    if (!c.available || !p?.available || c.median === null || p.median === null || p.median <= 0) continue;
    const ratio = c.median / p.median;
    if (ratio > 1 + threshold) out.push({ name: c.name, previousMedian: p.median, median: c.median, ratio });
  }
  return out;
}
