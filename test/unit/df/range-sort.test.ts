// The sampling sort (range-sort.ts) against a plain stable sort of the whole table: same rows in
// the same order (a row-id column checks stability), for mixed types, directions, nulls, NaN,
// many duplicate keys, skewed keys and empty partitions; plus the ops through runDfOp.
import { describe, expect, it } from 'vitest';
import type { Table } from 'apache-arrow';
import { boolVector, floatVector, intVector, stringVector } from '../../../worker/kernels/df/build';
import { concatTables, tableOf } from '../../../worker/kernels/df/gather';
import { chooseSplitters, partOf, rangeParts, rangeSplit, sortPart, sortSample } from '../../../worker/kernels/df/range-sort';
import { sortTable } from '../../../worker/kernels/df/sort';
import { runDfOp } from '../../../worker/kernels/df/task-ops';
import { rows } from './helpers';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { runLocal } from '../../helpers/local-run';
import { rowsOf } from '../../helpers/df-rows';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = ['pear', 'apple', 'fig', 'kiwi', 'Banana', 'date', ''];

/** A partition of n rows: id (global row number), k (few ints, nulls), f (floats, NaN), s (strings, nulls), b. */
function part(n: number, first: number, seed: number, skew = false): Table {
  const r = rng(seed);
  const id = new Float64Array(n);
  const k = new Float64Array(n);
  const kv = new Uint8Array(n).fill(1);
  const f = new Float64Array(n);
  const codes = new Int32Array(n);
  const sv = new Uint8Array(n).fill(1);
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    id[i] = first + i;
    k[i] = skew ? (r() < 0.8 ? 7 : Math.floor(r() * 5)) : Math.floor(r() * 6) - 2;
    if (r() < 0.1) kv[i] = 0;
    f[i] = r() < 0.05 ? NaN : Math.round(r() * 40) / 4 - 5;
    codes[i] = Math.floor(r() * WORDS.length);
    if (r() < 0.08) sv[i] = 0;
    b[i] = r() < 0.5 ? 1 : 0;
  }
  return tableOf([
    { name: 'id', vector: intVector(id) },
    { name: 'k', vector: intVector(k, kv) },
    { name: 'f', vector: floatVector(f) },
    { name: 's', vector: stringVector(codes, WORDS, sv) },
    { name: 'b', vector: boolVector(b) },
  ]);
}

function partitions(sizes: number[], seed: number, skew = false): Table[] {
  let first = 0;
  return sizes.map((n, i) => {
    const t = part(n, first, seed * 97 + i, skew);
    first += n;
    return t;
  });
}

/** The whole pipeline as the compiler emits it, done in-process. */
function distributedSort(parts: Table[], by: string[], ascending: boolean | boolean[], sample = 64): Table[] {
  const k = parts.length;
  const splitters = chooseSplitters(parts.map((p) => sortSample(p, by, sample)), by, ascending, k);
  const splits = parts.map((p) => rangeSplit(p, splitters, by, ascending, k));
  return Array.from({ length: k }, (_, p) => sortPart(splits, p, by, ascending));
}

const cases: { name: string; sizes: number[]; by: string[]; asc: boolean | boolean[]; skew?: boolean }[] = [
  { name: 'one int key with nulls', sizes: [300, 200, 250, 180], by: ['k'], asc: true },
  { name: 'float key with NaN, descending', sizes: [400, 10, 300], by: ['f'], asc: false },
  { name: 'string then int, mixed directions', sizes: [250, 250, 250, 250, 250], by: ['s', 'k'], asc: [false, true] },
  { name: 'bool, string, float', sizes: [200, 300], by: ['b', 's', 'f'], asc: [true, true, false] },
  { name: 'empty partitions', sizes: [0, 300, 0, 200, 0], by: ['s', 'f'], asc: true },
  { name: 'every partition empty', sizes: [0, 0, 0], by: ['k'], asc: true },
  { name: 'fewer rows than partitions', sizes: [1, 0, 1, 0], by: ['s'], asc: false },
  { name: 'skewed keys (80% one value)', sizes: [500, 500, 500], by: ['k'], asc: true, skew: true },
];

describe('sampling sort', () => {
  for (const c of cases) {
    it(`equals a stable sort of the whole table: ${c.name}`, () => {
      const parts = partitions(c.sizes, c.sizes.length + c.by.length, c.skew);
      const out = distributedSort(parts, c.by, c.asc);
      expect(out.length).toBe(parts.length);
      const want = rows(sortTable(concatTables(parts), c.by, c.asc));
      const got = rows(concatTables(out));
      // ids compared as a list: the same rows in the same order, so ties keep input order too.
      expect(got.map((r) => r.id)).toEqual(want.map((r) => r.id));
    });
  }

  it('spreads rows over the parts (no part holds everything when keys are distinct)', () => {
    const parts = partitions([1000, 1000, 1000, 1000], 5);
    const out = distributedSort(parts, ['f', 'id'], true);
    const sizes = out.map((t) => t.numRows);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(4000);
    for (const s of sizes) {
      expect(s).toBeGreaterThan(500);
      expect(s).toBeLessThan(1500);
    }
  });

  it('sends equal keys to one part (upper bound on the splitters)', () => {
    const t = part(500, 0, 3);
    const splitters = chooseSplitters([sortSample(t, ['k'], 50)], ['k'], true, 4);
    const p = rangeParts(t, splitters, ['k'], true);
    const partOfKey = new Map<string, number>();
    const k = rows(t).map((r) => String(r.k));
    k.forEach((key, i) => {
      const seen = partOfKey.get(key);
      if (seen === undefined) partOfKey.set(key, p[i]);
      else expect(p[i]).toBe(seen);
    });
    // Nulls sort last, so they are in the last part.
    k.forEach((key, i) => {
      if (key === 'null') expect(p[i]).toBe(splitters.numRows);
    });
  });

  it('samples are evenly spaced and deterministic', () => {
    const t = part(100, 0, 1);
    const s = sortSample(t, ['id'], 4);
    expect(rows(s).map((r) => r.id)).toEqual([12, 37, 62, 87]);
    expect(sortSample(t, ['id'], 1000).numRows).toBe(100);
    expect(sortSample(t.slice(0, 0), ['id'], 10).numRows).toBe(0);
  });

  it('runs as task ops (sort-sample, sort-splitters, range-split, sort-part)', async () => {
    const parts = partitions([120, 0, 90], 11);
    const by = ['s', 'id'];
    const ascending = [false, true];
    const tableOut = (o: Awaited<ReturnType<typeof runDfOp>>) => {
      if (o.kind !== 'table') throw new Error('expected a table');
      return o.table;
    };
    const samples = await Promise.all(parts.map(async (t) => tableOut(await runDfOp('sort-sample', { by, count: 16 }, [{ kind: 'table', table: t }]))));
    const splitters = tableOut(await runDfOp('sort-splitters', { by, ascending, parts: 3 }, samples.map((table) => ({ kind: 'table' as const, table }))));
    expect(splitters.numRows).toBe(2);
    const splits = await Promise.all(parts.map(async (t) => tableOut(await runDfOp('range-split', { by, ascending }, [{ kind: 'table', table: t }, { kind: 'table', table: splitters }]))));
    expect(splits.map((s) => [0, 1, 2].map((p) => partOf(s, p).numRows).reduce((a, b) => a + b, 0))).toEqual([120, 0, 90]);
    const out = await Promise.all([0, 1, 2].map(async (p) => tableOut(await runDfOp('sort-part', { by, ascending, part: p }, splits.map((table) => ({ kind: 'table' as const, table }))))));
    expect(rows(concatTables(out)).map((r) => r.id)).toEqual(rows(sortTable(concatTables(parts), by, ascending)).map((r) => r.id));
    await expect(runDfOp('sort-part', { by, part: 0 }, [{ kind: 'table', table: parts[0] }])).rejects.toThrow(/sort-part: the input was not made by a split/);
  });
});

describe('sort node plan', () => {
  const doc = (partitions: number) => ({
    format: 'gpuflow.workflow/1',
    nodes: [
      { id: 'ts', op: 'timeseries', params: { partitions, rows_per_partition: 50 } },
      { id: 's', op: 'sort', params: { by: ['name', 'x'], ascending: [true, false] } },
    ],
    edges: [{ source: 'ts', sourcePort: 'out', target: 's', targetPort: 'df' }],
  });

  it('samples, picks splitters, range-splits and sorts each part (no gather of the frame)', () => {
    const c = compileWorkflow(validateWorkflow(doc(4)));
    const ops = [...c.tasks.values()].filter((t) => t.node === 's').map((t) => (t.spec.kind === 'df' ? t.spec.op : ''));
    const n = (op: string) => ops.filter((o) => o === op).length;
    expect([n('sort-sample'), n('sort-splitters'), n('range-split'), n('sort-part'), n('sort')]).toEqual([4, 1, 4, 4, 0]);
    const one = compileWorkflow(validateWorkflow(doc(1)));
    expect([...one.tasks.values()].filter((t) => t.node === 's').map((t) => (t.spec.kind === 'df' ? t.spec.op : ''))).toEqual(['sort']);
  });

  it('through the engine equals the one-partition sort of the same rows', async () => {
    const many = rowsOf((await runLocal(doc(4))).s);
    // The oracle: the same 200 rows sorted by a plain stable sort in this process.
    const ts = rowsOf((await runLocal({ format: 'gpuflow.workflow/1', nodes: [doc(4).nodes[0]], edges: [] })).ts);
    const want = [...ts].sort((a, b) => (a.name! < b.name! ? -1 : a.name! > b.name! ? 1 : (b.x as number) - (a.x as number)));
    expect(many).toEqual(want);
  });
});
