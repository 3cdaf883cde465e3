/**
 * Seeded random dtype cases (test/helpers/dtype-cases.ts) against NumPy, in this process on the
 * js backend and on native-cpu (programs it cannot run fall back to js, as on a worker): each
 * result's dtype and values. The multi-worker runs are test/integration/dtype-random.test.ts.
 */
import { describe, it } from 'vitest';
import { checkDtypeCases, dtypeCasesDoc, makeDtypeCases } from '../../helpers/dtype-cases';
import { localTasks } from '../../helpers/local-tasks';
import { backendSets } from '../../helpers/backend-sets';

describe.each(backendSets())('random dtype cases against NumPy (%s)', (_, backends) => {
  it.each([1, 2, 3])('seed %i: 150 cases', async (seed) => {
    const { cases, dir, want } = makeDtypeCases(seed, 150);
    const results = await (await localTasks(dtypeCasesDoc(cases), {}, {}, backends())).results();
    checkDtypeCases(cases, results, dir, want);
  }, 120_000);
});
