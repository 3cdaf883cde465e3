/**
 * 48 dataframe cases adapted from dask/dataframe/tests (groupby, merge, sort, filter, missing
 * values, summaries; test/fixtures/df/make_dask_cases.py lists each one's dask test and pandas
 * expression) against pandas' results, run in-process with the CSV inputs split into blocks of
 * odd sizes, so trees, shuffles, broadcasts and gathers see several partitions. The same cases run
 * on forked workers in test/integration/df-workers.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runLocal } from '../../helpers/local-run';
import { DASK_CASES, caseOutput, daskCasesWorkflow, expectCase } from '../../helpers/dask-df-cases';

describe('dataframe cases from dask/dataframe/tests, against pandas', () => {
  it('has at least 25 cases', () => expect(DASK_CASES.cases.length).toBeGreaterThanOrEqual(25));
  for (const blocksize of [131, 257, undefined]) {
    it(`every case, CSV blocks of ${blocksize ?? 'whole files'}${blocksize ? ' bytes' : ''}`, async () => {
      const r = await runLocal(daskCasesWorkflow(blocksize));
      const failures: string[] = [];
      for (const c of DASK_CASES.cases) {
        try {
          expectCase(c, r[caseOutput(c)]);
        } catch (e) {
          failures.push((e as Error).message.split('\n')[0]);
        }
      }
      expect(failures).toEqual([]);
    }, 60_000);
  }
});
