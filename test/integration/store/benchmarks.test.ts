import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openStore, type BenchmarkConfigInput, type Store } from '../../../main/store';
import { DIGEST_SIGNIFICANT_DIGITS } from '../../../common/digest';
import { sampleDoc, tempDir } from './helpers';

let cleanup: () => void;
let store: Store;
let hash: string;
beforeEach(() => {
  const t = tempDir();
  cleanup = t.cleanup;
  store = openStore(join(t.dir, 'gpuflow.db'));
  hash = store.saveWorkflowVersion(sampleDoc()).hash;
});
afterEach(() => {
  store.close();
  cleanup();
});

function configs(scale: number, gpuDigest = 'd1'): BenchmarkConfigInput[] {
  return [
    { name: '1 CPU core', available: true, workers: 1, times: [100 * scale, 90 * scale, 110 * scale], digest: 'd1', backends: { sum: 'native-cpu' } },
    { name: 'all CPU cores', available: true, workers: 16, times: [20 * scale, 22 * scale, 21 * scale], digest: 'd1' },
    { name: '1 GPU', available: true, virtual: true, workers: 1, times: [5 * scale], digest: gpuDigest },
    { name: 'all GPUs', available: false, unavailableReason: 'only 1 GPU on this machine', workers: 0, times: [] },
  ];
}

describe('benchmarks', () => {
  it('stores configurations with computed median, spread and digest agreement', () => {
    const b = store.saveBenchmark({ workflowHash: hash, machine: 'm1', warmup: 1, repetitions: 3, configs: configs(1), created: 1000 });
    expect(b).toMatchObject({ workflowHash: hash, workflowName: sampleDoc().name, machine: 'm1', digestsAgree: true, toleranceDigits: DIGEST_SIGNIFICANT_DIGITS, warmup: 1, repetitions: 3 });
    expect(b.configs.map((c) => [c.name, c.median, c.available, c.virtual])).toEqual([
      ['1 CPU core', 100, true, false],
      ['all CPU cores', 21, true, false],
      ['1 GPU', 5, true, true],
      ['all GPUs', null, false, false],
    ]);
    expect(b.configs[0].spread).toBeCloseTo(0.2, 12);
    expect(b.configs[0].backends).toEqual({ sum: 'native-cpu' });
    expect(b.configs[3].unavailableReason).toBe('only 1 GPU on this machine');
    expect(store.getBenchmark(b.id)).toEqual(b);
    const disagree = store.saveBenchmark({ workflowHash: hash, machine: 'm1', warmup: 1, repetitions: 3, configs: configs(1, 'other'), created: 2000 });
    expect(disagree.digestsAgree).toBe(false);
  });

  it('finds the previous benchmark and flags a >10% slowdown on the same machine only', () => {
    const first = store.saveBenchmark({ workflowHash: hash, machine: 'm1', warmup: 1, repetitions: 3, configs: configs(1), created: 1000 });
    const elsewhere = store.saveBenchmark({ workflowHash: hash, machine: 'm2', warmup: 1, repetitions: 3, configs: configs(0.5), created: 2000 });
    const slower = store.saveBenchmark({ workflowHash: hash, machine: 'm1', warmup: 1, repetitions: 3, configs: configs(1.15), created: 3000 });
    expect(store.previousBenchmark(hash)!.id).toBe(slower.id);
    expect(store.previousBenchmark(hash, { before: slower.id })!.id).toBe(elsewhere.id);
    expect(store.previousBenchmark(hash, { before: slower.id, machine: 'm1' })!.id).toBe(first.id);
    const check = store.checkSlowdown(slower.id);
    expect(check.previous!.id).toBe(first.id);
    expect(check.slowdowns.map((s) => s.name)).toEqual(['1 CPU core', 'all CPU cores', '1 GPU']);
    expect(check.slowdowns[0].previousMedian).toBe(100);
    expect(check.slowdowns[0].median).toBeCloseTo(115, 9);
    expect(check.slowdowns[0].ratio).toBeCloseTo(1.15, 12);
    expect(store.checkSlowdown(first.id)).toEqual({ previous: undefined, slowdowns: [] });
    expect(store.listBenchmarks(hash).map((b) => b.id)).toEqual([slower.id, elsewhere.id, first.id]);
  });

  it('rejects faked or malformed configurations, naming the field', () => {
    const bad = (c: BenchmarkConfigInput[]) => () => store.saveBenchmark({ workflowHash: hash, machine: 'm', warmup: 0, repetitions: 1, configs: c });
    expect(bad([{ name: 'all GPUs', available: false, workers: 0, times: [3] , unavailableReason: 'x'}])).toThrow(/configs\[0\]\.times: an unavailable configuration has no times/);
    expect(bad([{ name: 'all GPUs', available: false, workers: 0, times: [] }])).toThrow(/configs\[0\]\.unavailableReason/);
    expect(bad([{ name: '2 GPUs' as never, available: true, workers: 2, times: [1] }])).toThrow(/configs\[0\]\.name/);
    expect(bad([{ name: '1 GPU', available: true, workers: 1, times: [1, NaN] }])).toThrow(/configs\[0\]\.times\[1\]/);
    expect(store.listBenchmarks()).toEqual([]);
  });
});
