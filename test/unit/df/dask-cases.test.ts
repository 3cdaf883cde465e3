/**
 * The dataframe cases adapted from dask/dataframe/tests (groupby, merge, sort, filter, missing
 * values, summaries; test/fixtures/df/make_dask_cases.py lists each one's dask test and pandas
 * expression) against pandas' results, run in-process with the CSV inputs split into blocks of
 * odd sizes, so trees, shuffles, broadcasts and gathers see several partitions. The same cases run
 * on forked workers in test/integration/df-workers.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLocal } from '../../helpers/local-run';
import { DASK_CASES, caseOutput, daskCasesWorkflow, expectCase } from '../../helpers/dask-df-cases';

describe('dataframe cases from dask/dataframe/tests, against pandas', () => {
  it('has at least 80 cases', () => expect(DASK_CASES.cases.length).toBeGreaterThanOrEqual(80));

  it("the fixture is pandas' answer today: make_dask_cases.py run again with /usr/bin/python3 writes the same cases and inputs", () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpuflow-dask-cases-'));
    mkdirSync(join(dir, 'dask'));
    for (const f of ['make_dask_cases.py', 'people.csv', 'depts.csv']) copyFileSync(join('test/fixtures/df', f), join(dir, f));
    execFileSync('/usr/bin/python3', ['make_dask_cases.py'], { cwd: dir, encoding: 'utf8' });
    for (const f of ['cases.json', ...Object.values(DASK_CASES.sources).map((s) => s.path).filter((p) => p.includes('/dask/')).map((p) => p.split('/').pop()!)]) {
      expect(readFileSync(join(dir, 'dask', f), 'utf8'), f).toBe(readFileSync(join('test/fixtures/df/dask', f), 'utf8'));
    }
  }, 60_000);
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
