/**
 * Engine choice for CPU workers: DuckDB embedded (@duckdb/node-api) against our own kernels, on
 * one timeseries partition (default 2.6M rows): groupby name -> mean(x), and filter x > 0.5.
 *
 * DuckDB cannot scan Arrow IPC without its arrow extension (a download, impossible on these
 * machines), so its rows must be appended; that ingestion is timed separately, and the queries
 * are timed on data already inside DuckDB (its best case), with 1 thread (one worker per core,
 * like ours) and with all threads. Ours run on the Arrow table as a worker holds it, and from
 * IPC bytes (as a partition arrives from another worker).
 *
 *   npx tsx bench/dataframes/engines.ts [--rows 2600000] [--reps 5] [--out DIR]
 */
import { DOUBLE, DuckDBDataChunk, DuckDBInstance, INTEGER, VARCHAR } from '@duckdb/node-api';
import { cpus } from 'node:os';
import { timeseriesPartition } from '../../worker/kernels/df/timeseries';
import { groupbyAggregate, groupbyChunk, type GroupbySpec } from '../../worker/kernels/df/groupby';
import { filter } from '../../worker/kernels/df/ops';
import { fromIPC, toIPC } from '../../worker/kernels/df/ipc';
import { numView, strView } from '../../worker/kernels/df/columns';
import { arg, machine, save, timeMs } from './common';

const rows = arg('rows', 2_600_000);
const reps = arg('reps', 5);
const spec: GroupbySpec = { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }] };

async function main(): Promise<void> {
  const t0 = performance.now();
  const table = timeseriesPartition(1, 0, rows);
  const genMs = performance.now() - t0;
  const ipc = toIPC(table);

  const ours = {
    groupbyMs: (await timeMs(reps, () => groupbyAggregate([groupbyChunk(table, spec)], spec))).median,
    groupbyFromIpcMs: (await timeMs(reps, () => groupbyAggregate([groupbyChunk(fromIPC(ipc), spec)], spec))).median,
    filterMs: (await timeMs(reps, () => filter(table, 'x > 0.5'))).median,
    filterCountOnlyMs: 0,
  };
  ours.filterCountOnlyMs = (await timeMs(reps, () => {
    // The predicate alone, without materialising the rows (what COUNT(*) measures in DuckDB).
    const x = numView(table.getChild('x')!, 'x').values;
    let c = 0;
    for (let i = 0; i < x.length; i++) if (x[i] > 0.5) c++;
    return c;
  })).median;

  // DuckDB: append the partition (timed), then query inside it.
  const duck: Record<string, number> = {};
  for (const threads of [1, cpus().length]) {
    const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
    const con = await inst.connect();
    await con.run('CREATE TABLE ts (id INTEGER, name VARCHAR, x DOUBLE, y DOUBLE)');
    const ingest0 = performance.now();
    const app = await con.createAppender('ts');
    const id = table.getChild('id')!.toArray() as Int32Array;
    const nm = strView(table.getChild('name')!, 'name');
    const x = numView(table.getChild('x')!, 'x').values;
    const y = numView(table.getChild('y')!, 'y').values;
    const V = 2048;
    for (let s = 0; s < rows; s += V) {
      const e = Math.min(rows, s + V);
      const chunk = DuckDBDataChunk.create([INTEGER, VARCHAR, DOUBLE, DOUBLE], e - s);
      const names: string[] = new Array(e - s);
      for (let i = s; i < e; i++) names[i - s] = nm.dict[nm.codes[i]];
      chunk.setColumns([Array.from(id.subarray(s, e)), names, Array.from(x.subarray(s, e)), Array.from(y.subarray(s, e))]);
      app.appendDataChunk(chunk);
    }
    app.flushSync();
    app.closeSync();
    const ingestMs = performance.now() - ingest0;
    const check = await con.runAndReadAll("SELECT avg(x) FROM ts WHERE name = 'Alice'");
    const q = async (sql: string) => (await timeMs(reps, async () => (await con.runAndReadAll(sql)).getRows())).median;
    duck[`t${threads}_ingestMs`] = ingestMs;
    duck[`t${threads}_groupbyMs`] = await q('SELECT name, avg(x) FROM ts GROUP BY name ORDER BY name');
    duck[`t${threads}_filterMaterializeMs`] = await q('CREATE OR REPLACE TEMP TABLE f AS SELECT * FROM ts WHERE x > 0.5');
    duck[`t${threads}_filterCountMs`] = await q('SELECT count(*) FROM ts WHERE x > 0.5');
    duck[`t${threads}_aliceMeanX`] = Number(check.getRows()[0][0]);
    con.closeSync();
    inst.closeSync();
  }

  const result = {
    bench: 'dataframes/engines',
    machine: machine(),
    rows,
    reps,
    generateMs: genMs,
    ours,
    duckdb: duck,
    ratios: {
      groupby_duck1_over_ours: duck.t1_groupbyMs / ours.groupbyMs,
      groupby_duckAll_over_ours: duck[`t${cpus().length}_groupbyMs`] / ours.groupbyMs,
      groupby_duck1_with_ingest_over_ours: (duck.t1_groupbyMs + duck.t1_ingestMs) / ours.groupbyMs,
      filter_duck1_over_ours: duck.t1_filterMaterializeMs / ours.filterMs,
    },
  };
  console.log(JSON.stringify(result, null, 2));
  console.log('wrote', save('dataframes-engines.json', result));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
