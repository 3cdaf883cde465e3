/**
 * Seeded random dtype cases (test/helpers/dtype-cases.ts) against NumPy, in this process on the
 * js backend and on native-cpu (programs it cannot run fall back to js, as on a worker): each
 * result's dtype and values. The multi-worker runs are test/integration/dtype-random.test.ts.
 */
import { describe, it } from 'vitest';
import { loadNative } from '../../../native/index';
import type { ArrayBackend } from '../../../worker/kernels/backend';
import { createJsBackend } from '../../../worker/kernels/js';
import { createNativeCpuBackend } from '../../../worker/kernels/native-cpu';
import { checkDtypeCases, dtypeCasesDoc, makeDtypeCases } from '../../helpers/dtype-cases';
import { localTasks } from '../../helpers/local-tasks';

const native = loadNative();

function nativeCpu(): ArrayBackend {
  const b = createNativeCpuBackend(2);
  if ('unavailable' in b) throw new Error(b.unavailable);
  return b;
}

describe.each([
  ['js', () => [createJsBackend()]],
  ...('unavailable' in native ? [] : [['native-cpu', () => [nativeCpu(), createJsBackend()]] as const]),
] as Array<[string, () => ArrayBackend[]]>)('random dtype cases against NumPy (%s)', (_, backends) => {
  it.each([1, 2, 3])('seed %i: 150 cases', async (seed) => {
    const { cases, dir, want } = makeDtypeCases(seed, 150);
    const results = await (await localTasks(dtypeCasesDoc(cases), {}, {}, backends())).results();
    checkDtypeCases(cases, results, dir, want);
  }, 120_000);
});
