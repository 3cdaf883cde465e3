/**
 * Dataframe workflows on forked workers, 1 CPU + 3 virtual GPUs, with the js and the native-cpu
 * backends (issue 18 items 7, 8 and 9): partitions made in different processes meet in one task.
 *
 * - 7: people.csv read in blocks, merged on the string key `dept` with the one-partition depts.csv
 *   (the broadcast join), how inner and left, equals pandas' merge (test/fixtures/df/expected.json
 *   by make_fixtures.py); groupby and value_counts combines are among the dask cases below.
 * - 9: `assign z = salary` / `w = dept`, then describe, equals pandas' describe of salary.
 * - 8: examples/dataframe-groupby.json run twice in one engine (long-lived workers, whose
 *   Arrow dictionary ids grow with every run) has one digest.
 * - The cases adapted from dask/dataframe/tests (test/helpers/dask-cases.ts) as one workflow over
 *   CSV blocks of 257 bytes, against pandas.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';
import { digestOf, loadTableDigests } from '../../main/api/run-record';
import type { RunResult } from '../../common/results';
import { rowsOf, type Row } from '../helpers/df-rows';
import { DASK_CASES, caseOutput, daskCasesWorkflow, expectCase } from '../helpers/dask-df-cases';

const expected = JSON.parse(readFileSync('test/fixtures/df/expected.json', 'utf8'));
const example = JSON.parse(readFileSync('examples/dataframe-groupby.json', 'utf8'));
const PEOPLE = 'test/fixtures/df/people.csv';

// digestOf reads table results through Apache Arrow, loaded on demand (main/api/run-record.ts).
beforeAll(() => loadTableDigests());

type N = [string, string, Record<string, unknown>];
function wf(nodes: N[], edges: [string, string, string][]): ReturnType<typeof validateWorkflow> {
  return validateWorkflow({ format: 'gpuflow.workflow/1', nodes: nodes.map(([id, op, params]) => ({ id, op, params })), edges: edges.map(([s, t, p]) => ({ source: s, sourcePort: 'out', target: t, targetPort: p })) });
}

function close(actual: Row[], want: Record<string, unknown>[]): void {
  expect(actual.length).toBe(want.length);
  want.forEach((w, i) => {
    for (const [k, v] of Object.entries(w)) {
      if (typeof v === 'number' && !Number.isInteger(v)) expect(actual[i][k] as number, `row ${i} ${k}`).toBeCloseTo(v, 6);
      else expect(actual[i][k], `row ${i} ${k}`).toEqual(v);
    }
  });
}

async function finished(e: Engine, w: ReturnType<typeof validateWorkflow>): Promise<RunResult> {
  const r = await e.run(w).result;
  expect(r.status, r.error).toBe('finished');
  return r;
}

for (const backend of ['js', 'native-cpu'] as const) {
  describe(`dataframes on 1 CPU + 3 virtual GPUs (${backend})`, () => {
    it('broadcast merge on a string key (inner, left), assign of a bare column, one digest per table, the dask cases', async () => {
      const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
      const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, virtualGpus: 3, backends: backend === 'js' ? ['js'] : ['native-cpu', 'js'], threadsPerCpuWorker: 1 });
      await engine.start();
      try {
        // One run: both broadcast merges, and assign of bare columns then describe.
        const r = await finished(engine, wf(
          [['src', 'read_csv', { path: PEOPLE, blocksize: 300 }], ['l', 'select', { columns: ['id', 'dept', 'age'] }], ['r', 'read_csv', { path: 'test/fixtures/df/depts.csv' }],
            ['m_inner', 'merge', { how: 'inner', on: ['dept'] }], ['s_inner', 'sort', { by: ['id', 'dept'] }], ['m_left', 'merge', { how: 'left', on: ['dept'] }], ['s_left', 'sort', { by: ['id', 'dept'] }],
            ['z', 'assign', { column: 'z', expr: 'salary' }], ['w', 'assign', { column: 'w', expr: 'dept' }], ['s', 'select', { columns: ['z', 'w', 'age'] }], ['d', 'describe', {}]],
          [['src', 'l', 'df'], ['l', 'm_inner', 'left'], ['r', 'm_inner', 'right'], ['m_inner', 's_inner', 'df'], ['l', 'm_left', 'left'], ['r', 'm_left', 'right'], ['m_left', 's_left', 'df'],
            ['src', 'z', 'df'], ['z', 'w', 'df'], ['w', 's', 'df'], ['s', 'd', 'df']],
        ));
        expect(r.stats.workers.filter((w) => w.tasks > 0).length, 'tasks ran on several workers').toBeGreaterThan(1);
        for (const how of ['inner', 'left']) {
          close(rowsOf(r.results[`s_${how}`]).map((x) => ({ id: x.id, dept: x.dept, age: x.age, floor: x.floor, budget: x.budget })), expected[`join_${how}`]);
        }
        rowsOf(r.results.d).forEach((x, i) => expect(x.z as number, String(x.stat)).toBeCloseTo(expected.describe.salary[i], 4));

        const all = await finished(engine, validateWorkflow(daskCasesWorkflow(257)));
        for (const c of DASK_CASES.cases) expectCase(c, all.results[caseOutput(c)]);

        const digests = new Set<string>();
        for (let k = 0; k < 2; k++) digests.add(digestOf(await finished(engine, validateWorkflow(example, { rows_per_partition: 500, partitions: 6 }))));
        expect(digests.size).toBe(1);
      } finally {
        await engine.shutdown();
      }
    }, 120_000);
  });
}
