import { describe, expect, it } from 'vitest';
import type { WorkerConfig } from '../../../common/messages';
import { BusyMeter } from '../../../main/cluster/busy-meter';
import type { GpuInfo } from '../../../main/cluster/discovery';
import { SampleRing } from '../../../main/cluster/sample-ring';
import { WorkerSampler, type SampledWorker } from '../../../main/cluster/worker-sampler';
import { EventBus } from '../../../main/engine/event-bus';

describe('SampleRing', () => {
  it('keeps the newest `capacity` values, oldest first', () => {
    const r = new SampleRing<number>(3);
    expect(r.toArray()).toEqual([]);
    for (let i = 1; i <= 7; i++) r.push(i);
    expect(r.toArray()).toEqual([5, 6, 7]);
    expect(r.size).toBe(3);
    r.push(8);
    expect(r.toArray()).toEqual([6, 7, 8]);
    expect(() => new SampleRing(0)).toThrow(/positive integer/);
  });
});

describe('BusyMeter', () => {
  it('is the time-weighted share of slots in use over each window', () => {
    const m = new BusyMeter(2, 0);
    m.setRunning(100, 1); // 1 of 2 slots from 100
    m.setRunning(300, 3); // more tasks than slots: full from 300
    m.setRunning(500, 0);
    // [0,1000): 0.5 * 200 + 1 * 200 = 300 busy ms -> 0.3
    expect(m.take(1000)).toBeCloseTo(0.3, 12);
    m.setRunning(1500, 2);
    // [1000,2000): full for the last 500 ms
    expect(m.take(2000)).toBeCloseTo(0.5, 12);
    // still running through the next window
    expect(m.take(2500)).toBe(1);
  });
});

const MiB = 1024 * 1024;
const cfg = (id: string, kind: WorkerConfig['kind'], extra: Partial<WorkerConfig> = {}): WorkerConfig => ({
  id,
  kind,
  label: id,
  threads: 1,
  concurrency: 1,
  memoryLimit: 1000,
  peerToken: 'x'.repeat(16),
  backends: ['js'],
  heartbeatMs: 1000,
  ...extra,
});

describe('WorkerSampler', () => {
  it('samples task activity and held bytes for CPU/virtual workers, the GPU counter for GPUs', async () => {
    let now = 0;
    const bus = new EventBus();
    const gpu: GpuInfo = { index: 0, uuid: 'GPU-1', name: 'H100', memoryTotalMiB: 80_000, memoryUsedMiB: 1_000, utilizationPct: 37, pciBusId: '0', driverVersion: '1' };
    const workers: SampledWorker[] = [
      { config: cfg('vgpu0', 'virtual-gpu'), heldBytes: 640, rss: 50 },
      { config: cfg('gpu0', 'gpu', { gpuUuid: 'GPU-1', concurrency: 16 }), heldBytes: 0, rss: 60 },
    ];
    let queries = 0;
    const s = new WorkerSampler(() => workers, bus, { now: () => now, capacity: 4, queryGpus: async () => (queries++, [gpu]) });
    const state = (t: number, key: string, from: string, to: string, worker?: string) => {
      now = t;
      bus.emit({ type: 'task-state', runId: 'r', key, node: 'n', from: from as 'ready', to: to as 'running', worker, cause: 0 });
    };
    s.sample(); // t=0: creates the meters, asks nvidia-smi
    await new Promise((r) => setImmediate(r));
    state(250, 'a', 'ready', 'running', 'vgpu0');
    state(750, 'a', 'running', 'memory');
    now = 1000;
    s.sample();
    const v = s.samples('vgpu0');
    expect(v.map((x) => x.util)).toEqual([0, 0.5]);
    expect(v[1]).toMatchObject({ t: 1000, busy: 0.5, memBytes: 640, rss: 50 });
    const g = s.samples('gpu0');
    expect(g[1]).toMatchObject({ util: 0.37, memBytes: 1_000 * MiB, busy: 0 });
    expect(s.source(workers[1].config)).toEqual({ utilSource: 'gpu-counter', deviceMemory: 80_000 * MiB });
    expect(s.source(workers[0].config)).toEqual({ utilSource: 'tasks', deviceMemory: null });
    expect(queries).toBeGreaterThanOrEqual(1);
    // A worker that goes down drops its running tasks from the count.
    state(1000, 'b', 'ready', 'running', 'vgpu0');
    now = 1500;
    bus.emit({ type: 'worker', worker: 'vgpu0', kind: 'virtual-gpu', label: 'v', state: 'down' });
    now = 2000;
    s.sample();
    expect(s.samples('vgpu0')[2].util).toBeCloseTo(0.5, 12);
    for (let i = 0; i < 5; i++) s.sample();
    expect(s.samples('vgpu0')).toHaveLength(4);
    s.stop();
  });

  it('frees the slots of a run that ended while its tasks still read running', () => {
    let now = 0;
    const bus = new EventBus();
    const s = new WorkerSampler(() => [{ config: cfg('vgpu0', 'virtual-gpu'), heldBytes: 0, rss: 0 }], bus, { now: () => now });
    s.sample();
    bus.emit({ type: 'task-state', runId: 'r', key: 'a', node: 'n', from: 'ready', to: 'running', worker: 'vgpu0', cause: 0 });
    now = 1000;
    s.sample();
    // The run is cancelled; the task never reports again.
    bus.emit({ type: 'run', runId: 'r', state: 'cancelled' });
    now = 2000;
    s.sample();
    now = 3000;
    s.sample();
    expect(s.samples('vgpu0').map((x) => x.util)).toEqual([0, 1, 0, 0]);
    s.stop();
  });

  it("does not count a benchmark's tasks (its own pool's workers) on this pool's worker of the same id", () => {
    let now = 0;
    const bus = new EventBus();
    const s = new WorkerSampler(() => [{ config: cfg('vgpu0', 'virtual-gpu'), heldBytes: 0, rss: 0 }], bus, { now: () => now });
    s.sample();
    bus.emit({ type: 'run', runId: 'b1', state: 'started', benchId: 'bench' });
    bus.emit({ type: 'task-state', runId: 'b1', key: 'a', node: 'n', from: 'ready', to: 'running', worker: 'vgpu0', cause: 0 });
    now = 1000;
    s.sample();
    bus.emit({ type: 'run', runId: 'b1', state: 'finished', benchId: 'bench' });
    // This pool's own run on vgpu0 still counts.
    bus.emit({ type: 'task-state', runId: 'r', key: 'a', node: 'n', from: 'ready', to: 'running', worker: 'vgpu0', cause: 0 });
    now = 2000;
    s.sample();
    expect(s.samples('vgpu0').map((x) => x.util)).toEqual([0, 0, 1]);
    s.stop();
  });
});
