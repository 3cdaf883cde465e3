/**
 * x[mask] and x[:, m] (issue 24 item 2) on worker processes, 1 CPU worker + 3 virtual GPU workers as the
 * issue's acceptance runs it: the selected blocks (their lengths known only there) travel
 * between workers to the sized programs and partials that consume them; values against NumPy.
 * native-cpu first when the addon is built (js for the programs it cannot run), else js.
 */
import { describe, expect, it } from 'vitest';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';
import { loadNative } from '../../native/index';
import { axisMaskDoc, axisMaskFixture, maskDoc, maskFixture } from '../helpers/mask-cases';

/** The workflow's result on 1 CPU + 3 virtual GPU workers. */
async function runOnWorkers(doc: unknown) {
  const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
  const backends = 'unavailable' in loadNative() ? ['js' as const] : ['native-cpu' as const, 'js' as const];
  const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, virtualGpus: 3, backends, threadsPerCpuWorker: 1 });
  await engine.start();
  try {
    return await engine.run(validateWorkflow(doc)).result;
  } finally {
    await engine.shutdown();
  }
}

describe('x[mask] on 1 CPU + 3 virtual GPU workers', () => {
  it('gives NumPy\'s selection, sum and mean with the blocks spread over the workers', async () => {
    const { path, want } = maskFixture([40, 9], 'float64', 0.25);
    const r = await runOnWorkers(maskDoc(path, [7, 4], 0.25));
    expect(r.status, r.error).toBe('finished');
    expect(r.stats.workers.filter((w) => w.tasks > 0).length).toBeGreaterThan(1);
    const m = want.m as number[];
    expect(r.results.out).toMatchObject({ kind: 'array', dtype: 'float64', shape: [m.length], data: m });
    const sum = r.results.sum as { value: number };
    expect(Math.abs(sum.value - (want.sum as number))).toBeLessThanOrEqual(1e-12 * Math.abs(want.sum as number));
    const mean = r.results.mean as { value: number };
    expect(Math.abs(mean.value - (want.mean as number))).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(want.mean as number)));
  }, 120_000);

  it('gives NumPy\'s x[:, m] (a 1-D mask along axis 1), its sum and its sum along axis 0 with the blocks spread over the workers', async () => {
    const { path, want } = axisMaskFixture([12, 30], 'float64', 1, 0);
    const r = await runOnWorkers(axisMaskDoc(path, [5, 7], 1, 0));
    expect(r.status, r.error).toBe('finished');
    expect(r.stats.workers.filter((w) => w.tasks > 0).length).toBeGreaterThan(1);
    expect(r.results.out).toMatchObject({ kind: 'array', dtype: 'float64', shape: want.shape, data: want.s });
    const sum0 = r.results.sum0 as { shape: number[]; data: number[] };
    expect(sum0.shape).toEqual([(want.shape as number[])[1]]);
    sum0.data.forEach((v, i) => expect(Math.abs(v - (want.sum0 as number[])[i])).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(v))));
    const sum = r.results.sum as { value: number };
    expect(Math.abs(sum.value - (want.sum as number))).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(want.sum as number)));
  }, 120_000);
});
