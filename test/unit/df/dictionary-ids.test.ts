/**
 * Issue 18 items 7 and 9 at the kernel level.
 *
 * 7: tables decoded from different workers' IPC carry the dictionary ids those processes gave
 * (each counts from 0), so two tables here can both hold id 0 with different dictionaries. Every
 * op that puts columns of several tables into one (join, concat, the groupby and value_counts
 * combines) must give an answer equal to the one computed from plain rows (the oracle: JS maps
 * over the rows, no kernel involved).
 * 9: a column assigned as another column unchanged (`z = x`, `z = name`) shares that column's
 * bytes; written to IPC and read back, the table must still hold both.
 */
import { Dictionary, Int32, Utf8, makeVector, type Table } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { floatVector, stringVector } from '../../../worker/kernels/df/build';
import { tableOf } from '../../../worker/kernels/df/gather';
import {
  assign, broadcastJoin, concatTables, describe as describeTable, groupbyAggregate, groupbyChunk, groupbyCombine,
  hashJoin, timeseries, valueCountsAggregate, valueCountsChunk,
} from '../../../worker/kernels/df/index';
import { wire } from './helpers';

/** A table as another process would send it: every string column with dictionary id 0 or 1. */
function fromWorker(cols: Record<string, (string | number)[]>): Table {
  let id = 0;
  const vectors = Object.entries(cols).map(([name, vals]) => {
    if (typeof vals[0] === 'number') return { name, vector: floatVector(Float64Array.from(vals as number[])) };
    const dict = [...new Set(vals as string[])];
    const v = stringVector(Int32Array.from(vals as string[], (s) => dict.indexOf(s)), dict);
    return { name, vector: makeVector(v.data[0].clone(new Dictionary(new Utf8(), new Int32(), id++))) };
  });
  // Through IPC, as a task's input arrives: the decoded types keep ids 0, 1, ...
  return wire(tableOf(vectors));
}

function rows(t: Table): Record<string, unknown>[] {
  return t.toArray().map((r) => Object.fromEntries(Object.entries(r.toJSON() as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
}

const left = fromWorker({ dept: ['ops', 'eng', 'hr', 'eng', 'sales'], who: ['a', 'b', 'c', 'd', 'e'], v: [1, 2, 3, 4, 5] });
const right = fromWorker({ dept: ['eng', 'sales', 'legal'], boss: ['zed', 'yan', 'xi'], floor: [3, 2, 5] });

describe('dictionary ids of tables from different workers (item 7)', () => {
  it('both sides hold dictionary id 0 with different dictionaries', () => {
    const id = (t: Table, c: string) => (t.schema.fields.find((f) => f.name === c)!.type as Dictionary).id;
    expect(id(left, 'dept')).toBe(0);
    expect(id(right, 'dept')).toBe(0);
    expect(id(left, 'who')).toBe(id(right, 'boss'));
  });

  it("a repeated id never gets a fresh id another column holds (this process's counter can hand one out)", () => {
    const data = (vals: string[]) => {
      const dict = [...new Set(vals)];
      return stringVector(Int32Array.from(vals, (s) => dict.indexOf(s)), dict).data[0];
    };
    const [a, b, c] = [data(['x', 'y']), data(['p', 'q']), data(['u', 'v'])];
    // c repeats a's id; b holds the id this process's counter hands out next.
    const next = new Dictionary(new Utf8(), new Int32()).id + 1;
    const as = (d: typeof a, id: number) => makeVector(d.clone(new Dictionary(new Utf8(), new Int32(), id)));
    const t = tableOf([{ name: 'a', vector: as(a, next + 1000) }, { name: 'b', vector: as(b, next) }, { name: 'c', vector: as(c, next + 1000) }]);
    const back = wire(t);
    expect(rows(back)).toEqual([{ a: 'x', b: 'p', c: 'u' }, { a: 'y', b: 'q', c: 'v' }]);
    const ids = t.schema.fields.map((f) => (f.type as Dictionary).id);
    expect(new Set(ids).size).toBe(3);
  });

  for (const how of ['inner', 'left'] as const) {
    it(`broadcast join, how ${how}, equals a join of plain rows and survives IPC`, () => {
      const boss = new Map([['eng', ['zed', 3]], ['sales', ['yan', 2]]]);
      const want = rows(left).flatMap((r) => {
        const m = boss.get(r.dept as string);
        if (!m && how === 'inner') return [];
        return [{ ...r, boss: m ? m[0] : null, floor: m ? m[1] : null }];
      });
      const j = broadcastJoin(left, right, { how, on: ['dept'] });
      expect(rows(j)).toEqual(want);
      expect(rows(wire(j))).toEqual(want);
      expect(rows(hashJoin(left, right, { how, on: ['dept'] }))).toEqual(want);
    });
  }

  it('outer hash join, concat, groupby and value_counts combines of such tables', () => {
    const o = rows(hashJoin(left, right, { how: 'outer', on: ['dept'] }));
    expect(o.map((r) => [r.dept, r.who, r.boss])).toEqual([
      ['ops', 'a', null], ['eng', 'b', 'zed'], ['hr', 'c', null], ['eng', 'd', 'zed'], ['sales', 'e', 'yan'], ['legal', null, 'xi'],
    ]);
    const other = fromWorker({ dept: ['legal', 'eng'], who: ['q', 'r'], v: [10, 20] });
    expect(rows(wire(concatTables([left, other]))).map((r) => r.dept)).toEqual(['ops', 'eng', 'hr', 'eng', 'sales', 'legal', 'eng']);
    const spec = { by: ['dept'], aggs: [{ column: 'v', agg: 'sum' as const }, { column: 'who', agg: 'nunique' as const }] };
    const partials = [groupbyChunk(left, spec), groupbyChunk(other, spec)].map((t) => wire(t));
    const g = rows(groupbyAggregate([wire(groupbyCombine(partials, spec))], spec));
    expect(g).toEqual([
      { dept: 'eng', v_sum: 26, who_nunique: 3 }, { dept: 'hr', v_sum: 3, who_nunique: 1 }, { dept: 'legal', v_sum: 10, who_nunique: 1 },
      { dept: 'ops', v_sum: 1, who_nunique: 1 }, { dept: 'sales', v_sum: 5, who_nunique: 1 },
    ]);
    const vc = rows(valueCountsAggregate([valueCountsChunk(left, 'dept'), valueCountsChunk(other, 'dept')].map((t) => wire(t)), 'dept'));
    expect(vc).toEqual([{ dept: 'eng', count: 3 }, { dept: 'hr', count: 1 }, { dept: 'legal', count: 1 }, { dept: 'ops', count: 1 }, { dept: 'sales', count: 1 }]);
  });
});

describe('assign of a bare column (item 9)', () => {
  it('z = x and w = name survive IPC, and describe after them works', () => {
    const t = wire(timeseries({ seed: 3, rowStart: 0, rowCount: 500 }));
    const a = wire(assign(t, { z: 'x', w: 'name' }));
    expect(a.numRows).toBe(500);
    const x = t.getChild('x')!.toArray() as Float64Array;
    expect(Array.from(a.getChild('z')!.toArray() as Float64Array)).toEqual(Array.from(x));
    expect(Array.from(a.getChild('y')!.toArray() as Float64Array)).toEqual(Array.from(t.getChild('y')!.toArray() as Float64Array));
    expect(a.getChild('w')!.toArray()).toEqual(t.getChild('name')!.toArray());
    const d = rows(wire(describeTable(a)));
    expect(d.map((r) => r.z)).toEqual(d.map((r) => r.x));
    expect(d[0].z).toBe(500);
  });
});
