import { describe, expect, it } from 'vitest';
import type { Table } from 'apache-arrow';
import { runDfOp, type DfOutput } from '../../../worker/kernels/df/task-ops';
import { groupby } from '../../../worker/kernels/df/groupby';
import { concatTables } from '../../../worker/kernels/df/gather';
import { fromIPC } from '../../../worker/kernels/df/ipc';
import { findHandler } from '../../../worker/handlers';
import '../../../worker/kernels/df/register';
import { rows } from './helpers';

const spec = { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }, { column: 'id', agg: 'std' }] };
const tbl = (o: DfOutput): Table => {
  if (o.kind !== 'table') throw new Error('expected a table');
  return o.table;
};
const T = (table: Table) => ({ kind: 'table' as const, table });

describe('dataframe task ops', () => {
  it('runs a shuffled groupby as tasks and agrees with one groupby of everything', async () => {
    const parts = await Promise.all([0, 1, 2].map(async (p) => tbl(await runDfOp('timeseries', { seed: 9, partition: p, rows: 500 }, []))));
    const splits = await Promise.all(parts.map(async (t) => tbl(await runDfOp('hash-split', { keys: ['name'], k: 2 }, [T(t)]))));
    const outs: Table[] = [];
    for (const p of [0, 1]) {
      const gathered = tbl(await runDfOp('gather-part', { part: p }, splits.map(T)));
      const partial = tbl(await runDfOp('groupby-chunk', { spec }, [T(gathered)]));
      outs.push(tbl(await runDfOp('groupby-aggregate', { spec }, [T(partial)])));
    }
    const got = rows(concatTables(outs)).sort((a, b) => String(a.name).localeCompare(String(b.name)));
    const want = rows(groupby(concatTables(parts), spec as never));
    expect(got.length).toBe(26);
    got.forEach((r, i) => {
      expect(r.name).toBe(want[i].name);
      expect(r.x_mean as number).toBeCloseTo(want[i].x_mean as number, 12);
      expect(r.id_std as number).toBeCloseTo(want[i].id_std as number, 9);
    });
  });

  it('checks params and inputs at the boundary, naming the op and field', async () => {
    await expect(runDfOp('filter', { expr: 3 }, [T(concatTables([tbl(await runDfOp('timeseries', { seed: 1, partition: 0, rows: 3 }, []))]))])).rejects.toThrow(/df filter: params\.expr: /);
    await expect(runDfOp('groupby-chunk', { spec: { by: ['a'], aggs: [{ column: 'x', agg: 'median' }] } }, [])).rejects.toThrow('takes 1 input, got 0');
    await expect(runDfOp('timeseries', { seed: 1, partition: 0, rows: 3, extra: 1 }, [])).rejects.toThrow(/df timeseries: params: .*extra/);
    await expect(runDfOp('melt', {}, [])).rejects.toThrow("df: unknown op 'melt'; ops are timeseries, read-csv");
  });

  it('registers handlers that take and give Arrow IPC chunk values', async () => {
    const gen = findHandler('df', 'timeseries');
    const flt = findHandler('df', 'filter');
    expect(gen && flt).toBeTruthy();
    const ctx = { backends: [] } as never; // a worker without the cuda backend: the js kernels
    const a = await gen!({ seed: 2, partition: 0, rows: 100 }, [], ctx);
    expect(a.value.kind).toBe('table');
    const b = await flt!({ expr: "name in ['Alice', 'Bob'] and x > 0" }, [a.value], ctx);
    if (b.value.kind !== 'table') throw new Error('expected a table');
    const t = fromIPC(b.value.ipc);
    expect(b.value.rows).toBe(t.numRows);
    expect(rows(t).every((r) => (r.name === 'Alice' || r.name === 'Bob') && (r.x as number) > 0)).toBe(true);
  });
});
