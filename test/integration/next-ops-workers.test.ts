/**
 * The NumPy cases of issue 24's next ops (test/helpers/next-ops-cases.ts: every dtype, NaN,
 * infinities, odd chunkings) as one workflow on worker processes, 1 CPU worker + 3 virtual GPU
 * workers, as the issue's acceptance runs them: blocks, partials, rechunked lanes and
 * concatenated runs travel between workers. native-cpu first when the addon is built (js for
 * the programs it cannot run), else js.
 */
import { describe, expect, it } from 'vitest';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';
import { loadNative } from '../../native/index';
import { checkDtypeCases, dtypeCasesDoc, numpyAnswers } from '../helpers/dtype-cases';
import { makeCases } from '../helpers/next-ops-cases';

describe('next-ops NumPy cases on 1 CPU + 3 virtual GPU workers', () => {
  it('gives NumPy\'s dtypes and values with the work spread over the workers', async () => {
    const { cases, dir } = makeCases();
    const want = numpyAnswers(cases, dir);
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    const backends = 'unavailable' in loadNative() ? ['js' as const] : ['native-cpu' as const, 'js' as const];
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, virtualGpus: 3, backends, threadsPerCpuWorker: 1 });
    await engine.start();
    try {
      const r = await engine.run(validateWorkflow(dtypeCasesDoc(cases))).result;
      expect(r.status, r.error).toBe('finished');
      expect(r.stats.workers.filter((w) => w.tasks > 0).length).toBeGreaterThan(1);
      checkDtypeCases(cases, r.results, dir, want);
    } finally {
      await engine.shutdown();
    }
  }, 300_000);
});
