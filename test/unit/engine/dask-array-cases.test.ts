/**
 * Cases adapted from dask/array/tests (slicing, reductions, shape ops, cumulative, where, astype,
 * histogram, percentile, tensordot) against NumPy: test/fixtures/arrays/dask/cases.json, written
 * by make_dask_fixtures.py, holds each case's workflow (inputs read with load_npy in chunks that
 * do not divide the shape) and NumPy's result. Every case runs here on the js backend and on
 * native-cpu (programs the addon cannot run fall back to js, as on a worker); the multi-worker
 * run of all cases in one workflow is test/integration/dask-array-cases.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { loadNative } from '../../../native/index';
import type { ArrayBackend } from '../../../worker/kernels/backend';
import { createJsBackend } from '../../../worker/kernels/js';
import { checkOutput, daskCases, type DaskCase, valuesOf } from '../../helpers/dask-array-cases';
import { localTasks } from '../../helpers/local-tasks';
import { nativeCpu } from '../../helpers/backend-sets';

async function runCase(c: DaskCase, backends: ArrayBackend[]): Promise<void> {
  const results = await (await localTasks(c.doc, {}, {}, backends)).results();
  for (const [name, file] of Object.entries(c.expected)) checkOutput(valuesOf(results[name]), file, c.tol, `${c.name} -> ${name}`);
}

const native = loadNative();
const table = daskCases().map((c) => [`${c.name}  [${c.source}]`, c] as const);

describe('dask.array cases against NumPy (js)', () => {
  it('has at least 40 cases', () => expect(table.length).toBeGreaterThanOrEqual(40));
  it.each(table)('%s', (_, c) => runCase(c, [createJsBackend()]));
});

describe.skipIf('unavailable' in native)('dask.array cases against NumPy (native-cpu, js where it cannot)', () => {
  it.each(table)('%s', (_, c) => runCase(c, [nativeCpu(), createJsBackend()]));
});
