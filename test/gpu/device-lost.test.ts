/**
 * `npm run test:gpu` on the GPU machine: a real GPU worker (cuda backend) whose device is "lost"
 * after 3 kernel calls (test-only GPUFLOW_FAULT_DEVICE_LOST_AFTER, which rejects with the addon's
 * lost-device error shape): it is marked gone and not restarted, its tasks finish on the CPU
 * worker, and the answer equals the in-process js reference. The native tagging itself
 * (DeviceLostError -> code GPUFLOW_DEVICE_LOST) cannot be provoked on a healthy GPU.
 */
import { describe, expect, it } from 'vitest';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';
import { runLocal } from '../helpers/local-run';
import { seedDoc, startWith } from '../reliability/helpers';

describe('a real GPU worker whose device is lost', () => {
  it('is marked gone, its tasks move to the CPU worker, and the answer is unchanged', async () => {
    const d = await discover();
    if (d.gpus.length === 0) throw new Error(`no GPU: ${d.reason ?? 'none found'}`);
    const id = `gpu${d.gpus[0].index}`; // the pool's id for the first GPU (maxGpus: 1)
    const engine = new Engine(d, { launcher: forkLauncher(), maxGpus: 1, cpuWorkers: 1 });
    await startWith(engine, { GPUFLOW_FAULT_DEVICE_LOST_AFTER: `${id}:3`, GPUFLOW_DEVICE_RESIDENT: '0' });
    try {
      const gpu = engine.pool.workers.get(id)!;
      expect(gpu.backends.find((b) => b.name === 'cuda')?.available, JSON.stringify(gpu.backends)).toBe(true);
      const params = { N: 4000, chunks: 500 };
      const expected = (await runLocal(seedDoc(), params)).total as { value: number };
      const r = await engine.run(validateWorkflow(seedDoc(), params)).result;
      const byWorker = Object.fromEntries(r.stats.workers.map((w) => [w.id, w]));
      console.log(`[gpu] device-lost ${JSON.stringify({ status: r.status, value: (r.results.total as { value: number } | undefined)?.value, expected: expected.value, gone: engine.pool.gone.get(id), workers: r.stats.workers })}`);
      expect(r.status, r.error).toBe('finished');
      expect(Math.abs((r.results.total as { value: number }).value - expected.value)).toBeLessThan(1e-9 * Math.abs(expected.value));
      expect(byWorker[id]?.backends.cuda).toBe(3);
      expect(byWorker.cpu0?.tasks).toBeGreaterThan(0);
      expect(engine.pool.gone.get(id)).toMatch(/^device lost: .*\(cudaErrorDevicesUnavailable\)$/);
      expect(engine.pool.restarts.get(id) ?? 0).toBe(0);
    } finally {
      await engine.shutdown();
    }
  });
});
