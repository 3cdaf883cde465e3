import { describe, expect, it } from 'vitest';
import { digestsAgree, findSlowdowns, median, spread } from '../../../main/store/bench-stats';
import type { BenchmarkConfigRecord } from '../../../common/store-types';

function config(name: BenchmarkConfigRecord['name'], med: number | null, available = true): BenchmarkConfigRecord {
  return { name, available, unavailableReason: available ? null : 'no GPU', virtual: false, workers: 1, times: med === null ? [] : [med], median: med, spread: 0, digest: 'd', backends: null };
}

describe('bench stats', () => {
  it('median and spread of hand-checked samples', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
    expect(spread([90, 100, 110])).toBeCloseTo(0.2, 12);
    expect(spread([7])).toBe(0);
  });

  it('digests agree only when every available configuration has the same digest', () => {
    expect(digestsAgree([{ available: true, digest: 'a' }, { available: true, digest: 'a' }, { available: false, digest: null }])).toBe(true);
    expect(digestsAgree([{ available: true, digest: 'a' }, { available: true, digest: 'b' }])).toBe(false);
    expect(digestsAgree([{ available: true, digest: null }])).toBe(false);
    expect(digestsAgree([{ available: false, digest: null }])).toBe(false);
  });

  it('flags a config more than 10% slower on the same machine only', () => {
    const prev = { machine: 'm1', configs: [config('1 CPU core', 100), config('all CPU cores', 50), config('1 GPU', 10), config('all GPUs', null, false)] };
    const cur = { machine: 'm1', configs: [config('1 CPU core', 110), config('all CPU cores', 56), config('1 GPU', 9), config('all GPUs', 5)] };
    const flagged = findSlowdowns(cur, prev);
    expect(flagged).toEqual([{ name: 'all CPU cores', previousMedian: 50, median: 56, ratio: 1.12 }]);
    expect(findSlowdowns(cur, { ...prev, machine: 'm2' })).toEqual([]);
    expect(findSlowdowns(cur, undefined)).toEqual([]);
  });
});
