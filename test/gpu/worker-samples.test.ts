/**
 * `npm run test:gpu` on the GPU machine: the workers panel's sampler reads a real GPU worker's
 * utilisation and memory from nvidia-smi (the device's own counters), and a CPU worker's from its
 * task activity. The oracle is nvidia-smi itself, read by discovery: same device, same total.
 */
import { describe, expect, it } from 'vitest';
import { discover, queryGpus } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { WorkerSampler } from '../../main/cluster/worker-sampler';
import { Engine } from '../../main/engine/engine';

const MiB = 1024 * 1024;

describe('worker samples on a real GPU', () => {
  it('take utilisation and device memory from the GPU counters', async () => {
    const d = await discover();
    if (d.gpus.length === 0) throw new Error(`no GPU: ${d.reason ?? 'none found'}`);
    const engine = new Engine(d, { launcher: forkLauncher(), maxGpus: 1, cpuWorkers: 1 });
    await engine.start();
    try {
      let queried: Promise<unknown> = Promise.resolve();
      const sampler = new WorkerSampler(() => engine.pool.workers.values(), engine.bus, {
        queryGpus: () => {
          const p = queryGpus();
          queried = p;
          return p;
        },
      });
      sampler.sample(); // starts the first nvidia-smi read
      await queried;
      await new Promise((r) => setTimeout(r, 50));
      sampler.sample();
      const gpu = [...engine.pool.workers.values()].find((w) => w.config.kind === 'gpu')!;
      const info = d.gpus.find((g) => g.uuid === gpu.config.gpuUuid)!;
      const last = sampler.samples(gpu.id).at(-1)!;
      expect(sampler.source(gpu.config)).toEqual({ utilSource: 'gpu-counter', deviceMemory: info.memoryTotalMiB * MiB });
      expect(last.util).toBeGreaterThanOrEqual(0);
      expect(last.util).toBeLessThanOrEqual(1);
      expect(last.memBytes).toBeGreaterThan(0);
      expect(last.memBytes).toBeLessThanOrEqual(info.memoryTotalMiB * MiB);
      const cpu = [...engine.pool.workers.values()].find((w) => w.config.kind === 'cpu')!;
      expect(sampler.source(cpu.config)).toEqual({ utilSource: 'tasks', deviceMemory: null });
      expect(sampler.samples(cpu.id).at(-1)!.util).toBe(0); // idle: no task ran
      sampler.stop();
    } finally {
      await engine.shutdown();
    }
  });
});
