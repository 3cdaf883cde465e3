/**
 * The seeded random dtype cases (test/helpers/dtype-cases.ts) on real worker processes: one
 * workflow of 150 cases per backend (js; native-cpu with js for what it cannot run) and worker
 * count (1 and 4 CPU workers), so blocks and partials (exact int64 sums included) travel between
 * workers; every result's dtype and values against NumPy's.
 */
import { describe, it } from 'vitest';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';
import { loadNative } from '../../native/index';
import { checkDtypeCase, dtypeCasesDoc, makeDtypeCases } from '../helpers/dtype-cases';

const backends: Array<Array<'js' | 'native-cpu'>> = 'unavailable' in loadNative() ? [['js']] : [['js'], ['native-cpu', 'js']];
const runs = backends.flatMap((b) => [1, 4].map((workers) => [b.join('+'), workers, b] as const));

describe('random dtype cases on worker processes', () => {
  it.each(runs)('%s, %i CPU workers: NumPy\'s dtypes and values', async (_, workers, b) => {
    const { cases, dir, want } = makeDtypeCases(100 + workers, 150);
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: workers, virtualGpus: 0, backends: [...b], threadsPerCpuWorker: 1 });
    await engine.start();
    try {
      const r = await engine.run(validateWorkflow(dtypeCasesDoc(cases))).result;
      if (r.status !== 'finished') throw new Error(`run ${r.status}: ${r.error}`);
      const errors: string[] = [];
      for (const c of cases) {
        try {
          checkDtypeCase(c, r.results[c.name], dir, want);
        } catch (e) {
          errors.push(e instanceof Error ? e.message.split('\n')[0] : String(e));
        }
      }
      if (errors.length) throw new Error(`${errors.length} of ${cases.length} cases differ from NumPy:\n${errors.join('\n')}`);
    } finally {
      await engine.shutdown();
    }
  }, 180_000);
});
