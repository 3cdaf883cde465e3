/**
 * examples/dataframe-groupby.json through the real engine (forked worker processes): the same
 * answer on 1 CPU worker and on 1 CPU + 3 virtual GPU workers, equal to means summed row by row in
 * this process (independent of the tree and of the placement).
 * Also: a malformed CSV row fails the run naming the file and the line.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';
import { timeseriesPartition } from '../../worker/kernels/df/index';
import { rowsOf } from '../helpers/df-rows';

const doc = JSON.parse(readFileSync('examples/dataframe-groupby.json', 'utf8'));
const ROWS = 2000;

async function withEngine<T>(virtualGpus: number, f: (e: Engine) => Promise<T>): Promise<T> {
  const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
  const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, virtualGpus, backends: ['js'], threadsPerCpuWorker: 1 });
  await engine.start();
  try {
    return await f(engine);
  } finally {
    await engine.shutdown();
  }
}

describe('examples/dataframe-groupby.json on workers', () => {
  it('gives the same answer on 1 worker and on 1 CPU + 3 virtual, equal to plain per-row means', async () => {
    const wf = validateWorkflow(doc, { rows_per_partition: ROWS });
    const one = await withEngine(0, async (e) => {
      const r = await e.run(wf).result;
      expect(r.status, r.error).toBe('finished');
      expect(r.stats.workers.filter((w) => w.tasks > 0)).toHaveLength(1);
      return r;
    });
    const four = await withEngine(3, async (e) => {
      const r = await e.run(wf).result;
      expect(r.status, r.error).toBe('finished');
      // A bad CSV row fails the run with the file and the line, through the workers.
      const bad = await e.run(validateWorkflow({ format: 'gpuflow.workflow/1', nodes: [{ id: 'csv', op: 'read_csv', params: { path: 'test/fixtures/df/bad.csv' } }], edges: [] })).result;
      expect(bad.status).toBe('failed');
      expect(bad.error).toMatch(/bad\.csv line 4: expected 3 fields, found 4/);
      expect(bad.errorNode).toBe('csv');
      return r;
    });
    expect(four.stats.workers.filter((w) => w.tasks > 0).length).toBeGreaterThan(1);
    const a = rowsOf(one.results.mean_x);
    const b = rowsOf(four.results.mean_x);
    expect(a).toHaveLength(26);
    expect(b.map((r) => r.name)).toEqual(a.map((r) => r.name));
    // Partials merge in a different order on different workers: equal to rounding.
    b.forEach((r, i) => expect(r.x_mean as number).toBeCloseTo(a[i].x_mean as number, 12));

    // Oracle: plain per-row sums over the generated partitions, no groupby kernel involved.
    const acc = new Map<string, { s: number; n: number }>();
    for (let p = 0; p < 30; p++) {
      const t = timeseriesPartition(0, p, ROWS);
      const nm = t.getChild('name')!;
      const x = t.getChild('x')!;
      for (let i = 0; i < t.numRows; i++) {
        const e = acc.get(nm.get(i)) ?? { s: 0, n: 0 };
        e.s += x.get(i);
        e.n++;
        acc.set(nm.get(i), e);
      }
    }
    const names = [...acc.keys()].sort();
    expect(a.map((r) => r.name)).toEqual(names);
    a.forEach((r, i) => expect(r.x_mean as number).toBeCloseTo(acc.get(names[i])!.s / acc.get(names[i])!.n, 12));
  }, 120_000);
});
