/**
 * Breadth of the Dask target on a real local distributed cluster (Debian's distributed 2022.12,
 * /usr/bin/python3): every workflow in examples/ either gives the digest of the local js kernels
 * (test/helpers/local-run.ts) or is refused at compile time, before any connection; and the
 * column and missing-value dataframe ops (python/gpuflow_dask/columns.py, missing.py) give the
 * local digest on partitions with nulls and NaN, as do value_counts (counts.py), drop_duplicates
 * (duplicates.py), sort, one partition or sampled over several (sorting.py), describe / quantile /
 * nunique (summaries.py), from_array (from_array.py) and assign's arithmetic (assign_expr.py).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDigest } from '../../main/api/run-record';
import { firstRefusal } from '../../main/dask/supported';
import { DaskTarget } from '../../main/dask/target';
import { compileWorkflow } from '../../main/engine/compile/compile';
import { EventBus } from '../../main/engine/event-bus';
import { validateWorkflow } from '../../main/engine/validate';
import type { RunResult } from '../../common/results';
import { DASK_PYTHON, skipDask, startLocalCluster, type SharedCluster } from '../helpers/dask-cluster';
import { chain, runLocal } from '../helpers/local-run';
import { runCli } from './cli-helpers';

/** Small params per example (one that is not listed runs with its defaults). */
const SMALL: Record<string, Record<string, number>> = {
  'seed-benchmark.json': { N: 400, chunks: 100 },
  'dataframe-groupby.json': { partitions: 4, rows_per_partition: 2000 },
  'linalg-svd.json': { rows: 2000, cols: 40, rank: 8, block_rows: 500 },
};

type Step = [string, string, Record<string, unknown>, string];

const localDigest = async (doc: unknown, params: Record<string, number>) => runDigest({ results: await runLocal(doc, params) } as RunResult);

type N = [string, string, Record<string, unknown>];
/** A workflow of `nodes` with edges `[from, to, port?]`. */
const graph = (name: string, nodes: N[], edges: [string, string, string?][]) => ({
  format: 'gpuflow.workflow/1',
  name,
  nodes: nodes.map(([id, op, params]) => ({ id, op, params })),
  edges: edges.map(([source, target, port]) => ({ source, sourcePort: 'out', target, targetPort: port ?? 'x' })),
});

/** A loopback port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

describe.skipIf(skipDask)('Dask breadth: the examples and the dataframe ops', () => {
  let cluster: SharedCluster;
  let target: DaskTarget;
  beforeAll(async () => {
    cluster = await startLocalCluster(2);
    target = await DaskTarget.connect(cluster.address, new EventBus(), { python: DASK_PYTHON, log: () => undefined });
  }, 120_000);
  afterAll(async () => {
    await target?.close();
    await cluster?.close();
  });

  async function daskDigest(doc: unknown, params: Record<string, number>, runId: string): Promise<string> {
    const r = await target.run(compileWorkflow(validateWorkflow(doc, params)), runId).result;
    expect(r.status, r.error).toBe('finished');
    return runDigest(r);
  }

  /** Each workflow is taken at compile time and gives the local digest on the cluster (`label i` names a failure). */
  async function expectLocalDigests(docs: unknown[], label: string): Promise<void> {
    for (const [i, doc] of docs.entries()) {
      expect(firstRefusal(compileWorkflow(validateWorkflow(doc, {}))), `${label} ${i}`).toBeNull();
      expect(await daskDigest(doc, {}, `${label}-${i}`), `${label} ${i}`).toBe(await localDigest(doc, {}));
    }
  }

  /** `lines` written as a CSV in a temporary folder, read in `blocksize` partitions; each of `docs(read)` gives the local digest on the cluster. */
  async function expectCsvDigests(label: string, lines: string[], types: Record<string, string>, blocksize: number, docs: (read: Step) => unknown[]): Promise<void> {
    const dir = mkdtempSync(path.join(tmpdir(), `gpuflow-${label}-`));
    const csv = path.join(dir, 'rows.csv');
    writeFileSync(csv, `${lines.join('\n')}\n`);
    try {
      await expectLocalDigests(docs(['read', 'read_csv', { path: csv, types, blocksize }, 'df']), label);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('runs every example with the local digest, or refuses it at compile time naming node and op', async () => {
    const files = readdirSync('examples').filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(5);
    const refused: string[] = [];
    for (const f of files) {
      const doc = JSON.parse(readFileSync(`examples/${f}`, 'utf8')) as unknown;
      const params = SMALL[f] ?? {};
      const refusal = firstRefusal(compileWorkflow(validateWorkflow(doc, params)));
      if (refusal !== null) {
        // Refused before any connection: the address answers nothing, yet the refusal comes (exit 2).
        const address = `tcp://127.0.0.1:${await closedPort()}`;
        const r = await runCli(['run', `examples/${f}`, '--dask', address, '--no-store'], { GPUFLOW_PYTHON: DASK_PYTHON }, 120_000);
        expect(r.code, `${f}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(refusal.message);
        expect(r.stderr).not.toContain('cannot reach');
        expect(refusal.message).toMatch(/^node '[^']+' \([^)]+\): .* is not supported on Dask/);
        refused.push(f);
        continue;
      }
      expect(await daskDigest(doc, params, `example-${f}`), f).toBe(await localDigest(doc, params));
    }
    // Only the tuning searches stay local (a trial trains in gpuflow's own workers).
    expect(refused).toEqual(['tuning-mnist-mlp.json', 'tuning-random-search.json']);
  }, 600_000);

  it('select, drop, rename, fillna, isna, dropna (thresh too), head, tail, value_counts, drop_duplicates, sort, describe, quantile, nunique and from_array over partitions with nulls and NaN give the local digest', async () => {
    // 60 rows: k int with gaps, x float with NaN / inf / gaps, s string with gaps, b bool with
    // gaps; 256-byte blocks make several partitions.
    const lines = ['k,x,s,b'];
    for (let i = 0; i < 60; i++) {
      const x = i % 7 === 3 ? 'nan' : i % 11 === 5 ? '' : i === 20 ? '-inf' : String((i * 1.25) % 9);
      lines.push([i % 5 === 2 ? '' : String(i * 3 - 40), x, i % 6 === 1 ? '' : `s${i % 4}`, i % 9 === 4 ? '' : String(i % 2 === 0)].join(','));
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-breadth-'));
    const csv = path.join(dir, 'gaps.csv');
    writeFileSync(csv, `${lines.join('\n')}\n`);
    const read: Step = ['read', 'read_csv', { path: csv, types: { k: 'int', x: 'float', s: 'string', b: 'bool' }, blocksize: 256 }, 'df'];
    const docs = [
      chain(read, ['sel', 'select', { columns: ['s', 'k', 'x'] }, 'df'], ['ren', 'rename', { mapping: { x: 'y' } }, 'df'], ['fill', 'fillna', { value: 0 }, 'df'], ['hd', 'head', { n: 25 }, 'df']),
      chain(read, ['fills', 'fillna', { value: 'nobody', columns: ['s'] }, 'df'], ['dr', 'drop', { columns: ['b'] }, 'df'], ['tl', 'tail', { n: 45 }, 'df']),
      chain(read, ['na', 'isna', {}, 'df']),
      chain(read, ['dn', 'dropna', { subset: ['x', 's'], how: 'any' }, 'df']),
      chain(read, ['dn', 'dropna', { subset: ['k', 'x'], how: 'all' }, 'df']),
      chain(read, ['dn', 'dropna', { thresh: 4 }, 'df']),
      chain(read, ['dn', 'dropna', { subset: ['k', 'x', 's'], thresh: 2 }, 'df']),
      chain(read, ['fb', 'fillna', { value: true }, 'df'], ['fi', 'fillna', { value: 2.5 }, 'df']),
      chain(read, ['vc', 'value_counts', { column: 's' }, 'df']),
      chain(read, ['vc', 'value_counts', { column: 'x', split_every: 2 }, 'df']),
      chain(read, ['vc', 'value_counts', { column: 'b' }, 'df']),
      chain(read, ['dd', 'drop_duplicates', { subset: ['s', 'b'] }, 'df']),
      chain(read, ['dd', 'drop_duplicates', { subset: ['x'], keep: 'last' }, 'df']),
      chain(read, ['sel', 'select', { columns: ['s', 'b'] }, 'df'], ['dd', 'drop_duplicates', {}, 'df']),
      chain(read, ['st', 'sort', { by: ['s', 'x'], ascending: [true, false] }, 'df']),
      chain(read, ['ds', 'describe', { percentiles: [0.1, 0.333, 0.9] }, 'df']),
      chain(read, ['dn', 'dropna', { subset: ['x'] }, 'df'], ['ds', 'describe', {}, 'df']),
      chain(read, ['q', 'df_quantile', { q: [0, 0.25, 0.5, 0.99, 1] }, 'df']),
      chain(read, ['nu', 'nunique', {}, 'df']),
      chain(read, ['st', 'sort', { by: ['k'], ascending: false }, 'df'], ['hd', 'head', { n: 9 }, 'df']),
      chain(['read', 'read_csv', { path: csv, types: { k: 'int', x: 'float', s: 'string', b: 'bool' } }, 'df'], ['st', 'sort', { by: ['b', 'x'] }, 'df']),
      ...(['float64', 'float32'] as const).map((dtype) => chain(['a', 'arange', { start: -7, stop: 40, step: 3, chunks: 5, dtype }], ['f', 'from_array', { columns: ['v'] }, 'x'], ['hd', 'head', { n: 12 }, 'df'])),
      // people.csv: a string column inferred, nulls in name and salary
      chain(['read', 'read_csv', { path: 'test/fixtures/df/people.csv', types: { start: 'string' }, blocksize: 300 }, 'df'], ['dn', 'dropna', {}, 'df'], ['tl', 'tail', { n: 30 }, 'df']),
    ];
    try {
      for (const [i, doc] of docs.entries()) {
        const graph = compileWorkflow(validateWorkflow(doc, {}));
        expect(firstRefusal(graph)).toBeNull();
        expect(graph.tasks.size, `workflow ${i}`).toBeGreaterThan(1);
        expect(await daskDigest(doc, {}, `ops-${i}`), `workflow ${i}`).toBe(await localDigest(doc, {}));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);

  it("filters on strings (== != <, UTF-16 order with non-ASCII), bools, in lists, is [not] null (NaN included) and arithmetic, under and / or / not with nulls, give the local digest", async () => {
    // 54 rows: k int with gaps, x float with NaN / inf / gaps, s string with gaps (an astral
    // character sorts below U+FF5E by UTF-16 code units, above it by code points), b bool with gaps.
    const words = ['ab', 'Ab', '\u{1F600}x', '\uFF5Ez', 'b', 'a b'];
    const lines = ['k,x,s,b'];
    for (let i = 0; i < 54; i++) {
      const x = i % 7 === 3 ? 'nan' : i % 11 === 5 ? '' : i === 20 ? '-inf' : String((i * 1.25) % 9 - 3);
      lines.push([i % 5 === 2 ? '' : String(i * 3 - 70), x, i % 8 === 1 ? '' : words[i % words.length], i % 9 === 4 ? '' : String(i % 2 === 0)].join(','));
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-filters-'));
    const csv = path.join(dir, 'filters.csv');
    writeFileSync(csv, `${lines.join('\n')}\n`);
    const read: Step = ['read', 'read_csv', { path: csv, types: { k: 'int', x: 'float', s: 'string', b: 'bool' }, blocksize: 256 }, 'df'];
    const conditions = [
      "s == 'ab' or s != 'b' and b == true",
      // '\u{1F600}x' sorts between 'b' and '\uFF5E' by UTF-16 code units (JavaScript), not by code points
      "s < '\uFF5E' and s > 'b' or not (s >= 'B')",
      "s in ['ab', 'a b', '\u{1F600}x'] or k not in [-70, -64, 5]",
      'x is null or k is not null and b != false',
      'x * 2 - k > 3 or k % 4 == 1 and not (x / 2 <= -1)',
      "b in [false] and s not in ['Ab']",
      // empties the first partitions (k < 0 there): zero-row tables come back from the workers
      "k > 0 and s != 'b'",
    ];
    try {
      await expectLocalDigests(conditions.map((expr) => chain(read, ['f', 'filter', { expr }, 'df'])), 'filter');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);

  it('reads CSV timestamp columns (date, space, T, fractions past ms, zones with and without a colon, before 1970, nulls) with the local digest, filters and sorts on them; skips unparsable dates as the local reader does; refuses an out-of-range date on the worker', async () => {
    const stamps = ['2000-01-05', '2000-01-05 12:30', '2000-01-05T12:00:00.5', '2000-01-05T12:00:00.123456789', '2000-01-05T12:00:00+05:30', '2000-01-05T12:00:00-0230', '', '1969-12-31T23:59:59.999Z', '0100-03-01T01:02:03'];
    const lines = ['t,v'];
    for (let i = 0; i < 45; i++) lines.push(`${stamps[i % stamps.length]},${i}`);
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-stamps-'));
    const csv = path.join(dir, 'stamps.csv');
    const bad = path.join(dir, 'bad.csv');
    const range = path.join(dir, 'range.csv');
    writeFileSync(csv, `${lines.join('\n')}\n`);
    writeFileSync(bad, 't,v\n2000-01-05,1\n2000-1-5,2\n5 Jan 2000,3\n2000-01-06T01:00Z,4\n');
    writeFileSync(range, 't,v\n2000-01-05,1\n2000-02-30,2\n');
    const read: Step = ['read', 'read_csv', { path: csv, types: { t: 'timestamp', v: 'int' }, blocksize: 200 }, 'df'];
    const docs = [
      chain(read, ['hd', 'head', { n: 40 }, 'df']),
      chain(read, ['f', 'filter', { expr: "t >= '2000-01-05T06:00' and t < '2000-01-06' or t in ['1969-12-31T23:59:59.999Z'] or t is null" }, 'df']),
      chain(read, ['st', 'sort', { by: ['t', 'v'], ascending: [false, true] }, 'df']),
      chain(['read', 'read_csv', { path: bad, types: { t: 'timestamp', v: 'int' }, on_bad_lines: 'skip' }, 'df'], ['hd', 'head', { n: 10 }, 'df']),
    ];
    try {
      await expectLocalDigests(docs, 'stamps');
      const doc = chain(['read', 'read_csv', { path: range, types: { t: 'timestamp', v: 'int' } }, 'df'], ['hd', 'head', { n: 10 }, 'df']);
      const r = await target.run(compileWorkflow(validateWorkflow(doc, {})), 'stamps-range').result;
      expect(r.status).toBe('failed');
      expect(r.error).toMatch(/^node 'read' \(read_csv\): .*timestamp text '2000-02-30' \(a field out of range\) is not implemented by gpuflow_dask/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);

  it('merges a partitioned left with a one-partition right (broadcast: inner, left, leftsemi, leftanti, null keys never, string and two-column keys, int against float) two one-partition sides (outer, right, shared keys from the right) and the hash-partitioned plan with the local digest', async () => {
    // left: 40 rows over several partitions; right: 12 rows, one partition. Keys with gaps, NaN and -0.
    const left = ['k,s,v'];
    for (let i = 0; i < 40; i++) left.push([i % 9 === 4 ? '' : String(i % 7), i % 6 === 1 ? '' : `s${i % 3}`, String(i * 1.5)].join(','));
    const right = ['k,s,v,f'];
    for (let i = 0; i < 12; i++) right.push([i % 5 === 3 ? '' : String((i * 2) % 9), i % 4 === 2 ? '' : `s${i % 4}`, String(100 + i), i === 3 ? 'nan' : i === 5 ? '-0' : String(i % 7)].join(','));
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-merge-'));
    const lcsv = path.join(dir, 'left.csv');
    const rcsv = path.join(dir, 'right.csv');
    writeFileSync(lcsv, `${left.join('\n')}\n`);
    writeFileSync(rcsv, `${right.join('\n')}\n`);
    const types = { k: 'int', s: 'string', v: 'float' };
    const merge = (lblock: number | null, params: Record<string, unknown>, rblock: number | null = null) => ({
      format: 'gpuflow.workflow/1',
      nodes: [
        { id: 'l', op: 'read_csv', params: { path: lcsv, types, ...(lblock ? { blocksize: lblock } : {}) } },
        { id: 'r', op: 'read_csv', params: { path: rcsv, types: { ...types, f: 'float' }, ...(rblock ? { blocksize: rblock } : {}) } },
        { id: 'm', op: 'merge', params },
      ],
      edges: [
        { source: 'l', sourcePort: 'out', target: 'm', targetPort: 'left' },
        { source: 'r', sourcePort: 'out', target: 'm', targetPort: 'right' },
      ],
    });
    const docs = [
      merge(120, { on: ['k'] }),
      merge(120, { on: ['s'], how: 'left', null_keys: 'never' }),
      merge(120, { on: ['k', 's'], how: 'left' }),
      merge(120, { left_on: ['v'], right_on: ['f'], suffixes: ['_a', '_b'] }),
      merge(null, { on: ['k'], how: 'outer' }),
      merge(null, { on: ['s'], how: 'right', null_keys: 'never' }),
      merge(null, { left_on: ['k'], right_on: ['f'], how: 'outer' }),
      // hash-partitioned: hash-split / gather-part shuffle both sides (the row hash ported bit for bit)
      merge(120, { on: ['k'], how: 'outer' }),
      merge(120, { on: ['s', 'k'], how: 'right' }, 90),
      merge(100, { left_on: ['v'], right_on: ['f'], strategy: 'hash' }, 90),
      merge(120, { on: ['s'], how: 'left', null_keys: 'never', strategy: 'hash' }),
      // leftsemi / leftanti: broadcast, one-partition sides and hash-partitioned, null keys both ways
      merge(120, { on: ['k'], how: 'leftsemi' }),
      merge(120, { on: ['s'], how: 'leftanti', null_keys: 'never' }),
      merge(null, { on: ['k', 's'], how: 'leftanti' }),
      merge(120, { on: ['s'], how: 'leftsemi', null_keys: 'never', strategy: 'hash' }, 90),
    ];
    try {
      await expectLocalDigests(docs, 'merge');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);

  it('rolling (every aggregate, min_periods, windows longer than a partition, -0 and NaN), resample of a CSV timestamp column (empty periods filled) and pivot_table give the local digest', async () => {
    const lines = ['t,x,k'];
    for (let i = 0; i < 50; i++) {
      const x = i % 7 === 3 ? 'nan' : i % 11 === 5 ? '' : i % 13 === 6 ? '-0' : String(((i * 37) % 17) / 4 - 2);
      // hours with gaps of several periods between some rows
      const t = new Date(Date.UTC(2000, 0, 1) + (i < 20 ? i : i * 3) * 3_600_000 + (i % 4) * 60_000).toISOString();
      lines.push([t, x, i % 5 === 2 ? '' : String(i % 6)].join(','));
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-window-'));
    const csv = path.join(dir, 'window.csv');
    writeFileSync(csv, `${lines.join('\n')}\n`);
    const read: Step = ['read', 'read_csv', { path: csv, types: { t: 'timestamp', x: 'float', k: 'int' }, blocksize: 150 }, 'df'];
    const roll = (window: number, extra: Record<string, unknown>): Step => ['r', 'rolling', { window, aggs: ['sum', 'mean', 'min', 'max', 'std', 'var', 'count'].map((agg) => ({ column: 'x', agg, as: `x_${agg}` })), ...extra }, 'df'];
    const docs = [
      chain(read, roll(3, {})),
      chain(read, roll(9, { min_periods: 2 })),
      chain(read, ['r', 'rolling', { window: 4, aggs: [{ column: 'k', agg: 'max', as: 'k' }, { column: 'x', agg: 'count', as: 'n' }], min_periods: 0 }, 'df']),
      chain(read, ['rs', 'resample', { on: 't', freq: '6h', aggs: [{ column: 'x', agg: 'mean' }, { column: 'k', agg: 'sum' }, { column: 'x', agg: 'count' }, { column: 'k', agg: 'max' }] }, 'df']),
      chain(read, ['rs', 'resample', { on: 't', freq: '1D', aggs: [{ column: 'x', agg: 'std' }, { column: 'k', agg: 'size' }], split_every: 2 }, 'df']),
      // pivot_table: an int index with gaps, a float category column, a category never present
      chain(read, ['a', 'assign', { column: 'c', expr: 'k % 3 / 2' }, 'df'], ['pv', 'pivot_table', { index: 'k', columns: 'c', values: 'x', categories: [0, 0.5, 1, 7] }, 'df']),
      // an assigned index whose row order differs from the key order (0, 5, 3, 2, 1)
      chain(read, ['a', 'assign', { column: 'j', expr: '(k * 5) % 6' }, 'df'], ['pv', 'pivot_table', { index: 'j', columns: 'k', values: 'x', aggfunc: 'sum', categories: [5, 1, 3], split_every: 2 }, 'df']),
    ];
    try {
      await expectLocalDigests(docs, 'window');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);

  it('assign of arithmetic over int and float columns with nulls, NaN and inf (int results, /, floored %, % 0, unary minus, a copied column, a number) gives the local digest; a function call is refused at compile time', async () => {
    // 48 rows: k int (negative and positive, gaps), x float with NaN / inf / gaps, s string.
    const lines = ['k,x,s'];
    for (let i = 0; i < 48; i++) {
      const x = i % 7 === 3 ? 'nan' : i % 11 === 5 ? '' : i === 20 ? '-inf' : i === 30 ? 'inf' : String((i * 1.75) % 9 - 4);
      lines.push([i % 5 === 2 ? '' : String(i * 3 - 70), x, i % 6 === 1 ? '' : `s${i % 4}`].join(','));
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-assign-'));
    const csv = path.join(dir, 'arith.csv');
    writeFileSync(csv, `${lines.join('\n')}\n`);
    const read: Step = ['read', 'read_csv', { path: csv, types: { k: 'int', x: 'float', s: 'string' }, blocksize: 200 }, 'df'];
    const as = (id: string, column: string, expr: string): Step => [id, 'assign', { column, expr }, 'df'];
    const docs = [
      chain(read, as('a1', 'z', 'k * 3 - 7'), as('a2', 'w', 'k % 4'), as('a3', 'r', 'k / 2')),
      chain(read, as('a1', 'y', '-x * 2 + k'), as('a2', 'm', 'x % 3'), as('a3', 'q', '(k + 1) % -3')),
      chain(read, as('a1', 'k', 'k % 0'), as('a2', 'x', '1 / x'), as('a3', 'c', 's'), as('a4', 'one', '1'), as('a5', 'half', '-0.5')),
    ];
    try {
      await expectLocalDigests(docs, 'assign');
      const rounded = compileWorkflow(validateWorkflow(chain(read, as('rd', 'z', 'round(x * 100, 1)')), {}));
      expect(firstRefusal(rounded)?.message).toBe(
        "node 'rd' (assign): the assign expression 'round(x * 100, 1)' (only a column, a number, or + - * / % of numeric columns and numbers) is not supported on Dask yet; run it on this workstation",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);

  it('runs integer chunk programs (int32 and int64: elementwise arrays, exact int64 sums and products that wrap, arg*, var, slices of int64 beyond 2**53) with the local digest', async () => {
    const reductions = (from: string, specs: [string, Record<string, unknown>][]): { nodes: N[]; edges: [string, string][] } => ({
      nodes: specs.map(([id, params]) => [id, 'reduce', params]),
      edges: specs.map(([id]) => [from, id]),
    });
    // float64 normals as int64 (truncated, as locally) times 3: sums, products that wrap, arg*, var, a reversed slice.
    const r64 = reductions('y', [['s', { op: 'sum' }], ['am', { op: 'argmin', axis: 0 }], ['mx', { op: 'max', axis: 1 }], ['v', { op: 'var' }], ['mn', { op: 'mean', axis: 0 }]]);
    const int64 = graph(
      'int64 normals',
      [['r', 'random_normal', { shape: [60, 50], chunks: [16, 20], mean: 0, std: 1e6, seed: 3 }], ['x', 'astype', { dtype: 'int64' }], ['y', 'scalar_op', { op: 'mul', value: 3 }], ['pr', 'reduce', { op: 'prod', axis: 1 }], ['sl', 'slice', { slices: '::-3, 1::4' }], ...r64.nodes],
      [['r', 'x'], ['x', 'y'], ['x', 'pr'], ['y', 'sl'], ...r64.edges],
    );
    // int32 arange plus 7: sum (int64 result), mean, min (int32 result), argmax, std, a reversed slice.
    const r32 = reductions('b', [['s', { op: 'sum' }], ['m', { op: 'mean' }], ['mn', { op: 'min' }], ['ax', { op: 'argmax' }], ['sd', { op: 'std' }]]);
    const int32 = graph(
      'int32 arange',
      [['a', 'arange', { start: -500, stop: 500, step: 1, chunks: 64, dtype: 'int32' }], ['b', 'scalar_op', { op: 'add', value: 7 }], ['sl', 'slice', { slices: '::-7' }], ...r32.nodes],
      [['a', 'b'], ['b', 'sl'], ...r32.edges],
    );
    // int64 values beyond 2**53 from a .npy file: exact slices, and a sum that wraps past 2**63.
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-int-'));
    const npy = path.join(dir, 'big.npy');
    const made = spawnSync(DASK_PYTHON, ['-c', 'import numpy as np, sys; np.save(sys.argv[1], (2**61 + np.arange(100, dtype=np.int64) * 3 + 1).reshape(100))', npy], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const big = graph(
      'int64 beyond 2**53',
      [['x', 'load_npy', { path: npy, chunks: [16] }], ['sl', 'slice', { slices: '5::3' }], ['s', 'reduce', { op: 'sum' }], ['mx', 'reduce', { op: 'max' }]],
      [['x', 'sl'], ['x', 's'], ['x', 'mx']],
    );
    try {
      await expectLocalDigests([int64, int32, big], 'int');
      // The exact int64 sum (wrapped past 2**63), not the float64 one: the oracle is Python's integers.
      const r = await target.run(compileWorkflow(validateWorkflow(big, {})), 'int-exact').result;
      expect(r.status, r.error).toBe('finished');
      const want = BigInt.asIntN(64, Array.from({ length: 100 }, (_, i) => 2n ** 61n + BigInt(i) * 3n + 1n).reduce((a, b) => a + b));
      expect(r.results.s).toMatchObject({ kind: 'scalar', dtype: 'int64', exact: want.toString() });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);

  it('runs chunk programs the native code has no instruction for (comparisons, where, nansum, broadcast comparisons; float64, float32 and int32) with the local digest', async () => {
    const f64 = graph(
      'comparisons and where',
      [
        ['r', 'random_normal', { shape: [40, 30], chunks: [16, 12], mean: 0, std: 2, seed: 5 }],
        ['pos', 'scalar_op', { op: 'gt', value: 0 }],
        ['w', 'where', { b_value: -1 }],
        ['s', 'reduce', { op: 'sum' }],
        ['am', 'reduce', { op: 'argmax', axis: 1 }],
        ['count', 'reduce', { op: 'sum' }],
        ['lg', 'unary', { op: 'log' }],
        ['ns', 'reduce', { op: 'nansum', axis: 0 }],
        ['row', 'arange', { stop: 3, step: 0.1, chunks: 12 }],
        ['lt', 'binary', { op: 'lt' }],
        ['below', 'reduce', { op: 'sum', axis: 0 }],
      ],
      [['r', 'pos'], ['pos', 'w', 'cond'], ['r', 'w', 'a'], ['w', 's'], ['w', 'am'], ['pos', 'count'], ['r', 'lg'], ['lg', 'ns'], ['r', 'lt', 'a'], ['row', 'lt', 'b'], ['lt', 'below']],
    );
    const f32 = graph(
      'float32 where',
      [
        ['x', 'random_normal', { shape: [50], chunks: [16], mean: 0, std: 1, seed: 9, dtype: 'float32' }],
        ['ge', 'scalar_op', { op: 'ge', value: 0.5 }],
        ['w', 'where', { b_value: 2.5 }],
        ['m', 'reduce', { op: 'mean' }],
        ['sl', 'slice', { slices: '::-5' }],
      ],
      [['x', 'ge'], ['ge', 'w', 'cond'], ['x', 'w', 'a'], ['w', 'm'], ['w', 'sl']],
    );
    const i32 = graph(
      'int32 comparison',
      [['a', 'arange', { stop: 100, chunks: 10, dtype: 'int32' }], ['b', 'arange', { start: 100, stop: 0, step: -1, chunks: 10, dtype: 'int32' }], ['lt', 'binary', { op: 'lt' }], ['n', 'reduce', { op: 'sum' }], ['sl', 'slice', { slices: '3::9' }]],
      [['a', 'lt', 'a'], ['b', 'lt', 'b'], ['lt', 'n'], ['lt', 'sl']],
    );
    await expectLocalDigests([f64, f32, i32], 'tree');
  }, 600_000);

  it('runs histogram, percentile / quantile (whole and along an axis, float and int) and top-k along an axis with the local digest', async () => {
    const doc = graph(
      'numpy ops',
      [
        ['r', 'random_normal', { shape: [30, 20], chunks: [8, 20], mean: 0, std: 3, seed: 11 }],
        ['h', 'histogram', { bins: 7, range: [-5, 4], split_every: 2 }],
        ['p', 'percentile', { q: [0, 12.5, 50, 99, 100] }],
        ['qa', 'quantile', { q: [0.25, 0.5], axis: 1 }],
        ['top', 'topk', { k: 3, axis: 1 }],
        ['bottom', 'topk', { k: -2, axis: 1 }],
        ['i', 'astype', { dtype: 'int64' }],
        ['pi', 'percentile', { q: [10, 50, 90], axis: 1 }],
        ['ti', 'topk', { k: 4, axis: 1 }],
      ],
      [['r', 'h'], ['r', 'p'], ['r', 'qa'], ['r', 'top'], ['r', 'bottom'], ['r', 'i'], ['i', 'pi'], ['i', 'ti']],
    );
    await expectLocalDigests([doc], 'numpy-ops');
  }, 600_000);

  it('runs cumsum / cumprod / nancumsum along an axis and flattened (float64, float32, int32) and reshape with the local digest', async () => {
    const doc = graph(
      'scans and reshape',
      [
        ['r', 'random_normal', { shape: [30, 20], chunks: [8, 6], mean: 1, std: 0.2, seed: 13 }],
        ['cs0', 'cumsum', { axis: 0 }],
        ['cp1', 'cumprod', { axis: 1 }],
        ['lg', 'unary', { op: 'log' }],
        ['ncs', 'nancumsum', { axis: 1 }],
        ['flat', 'cumsum', {}],
        ['f32', 'astype', { dtype: 'float32' }],
        ['cs32', 'cumsum', { axis: 0 }],
        ['i', 'scalar_op', { op: 'mul', value: 100 }],
        ['i32', 'astype', { dtype: 'int32' }],
        ['csi', 'cumsum', { axis: 1 }],
        ['rs', 'reshape', { shape: [20, 30], chunks: [7, 30] }],
        ['rs1', 'reshape', { shape: [-1] }],
      ],
      [['r', 'cs0'], ['r', 'cp1'], ['r', 'lg'], ['lg', 'ncs'], ['r', 'flat'], ['r', 'f32'], ['f32', 'cs32'], ['r', 'i'], ['i', 'i32'], ['i32', 'csi'], ['r', 'rs'], ['i32', 'rs1']],
    );
    await expectLocalDigests([doc], 'scans');
  }, 600_000);

  it('repartitions a frame with nulls into more partitions (even row slices) and fewer (concatenated neighbours) with the local digest', async () => {
    const lines = ['k,x,s'];
    for (let i = 0; i < 53; i++) lines.push([i % 5 === 2 ? '' : String(i * 7 - 90), i % 7 === 3 ? 'nan' : String(i / 4), i % 6 === 1 ? '' : `s${i % 3}`].join(','));
    await expectCsvDigests('repartition', lines, { k: 'int', x: 'float', s: 'string' }, 300, (read) => [chain(read, ['more', 'repartition', { npartitions: 11 }, 'df']), chain(read, ['fewer', 'repartition', { npartitions: 2 }, 'df']), chain(read, ['more', 'repartition', { npartitions: 9 }, 'df'], ['hd', 'head', { n: 30 }, 'df'])]);
  }, 600_000);

  it('shift and diff (periods up and down, across partitions, int / float / string columns with nulls and NaN, replaced or suffixed) give the local digest', async () => {
    const lines = ['k,x,s'];
    for (let i = 0; i < 47; i++) lines.push([i % 5 === 2 ? '' : String(i * 7 - 90), i % 7 === 3 ? 'nan' : i % 9 === 4 ? '' : String(i / 4), i % 6 === 1 ? '' : `s${i % 3}`].join(','));
    await expectCsvDigests('shift', lines, { k: 'int', x: 'float', s: 'string' }, 120, (read) => [
      chain(read, ['sh', 'shift', { periods: 3 }, 'df']),
      chain(read, ['sh', 'shift', { periods: -4, columns: ['s', 'x'], suffix: '_next' }, 'df']),
      chain(read, ['d', 'df_diff', { periods: 2 }, 'df']),
      chain(read, ['d', 'df_diff', { periods: -1, columns: ['k'], suffix: '_d' }, 'df']),
    ]);
  }, 600_000);

  it('map of string and number columns (ints, floats such as 0.00001 and 2.5 by their JavaScript text, nulls and NaN, missing keys) to int, float, string and bool columns gives the local digest', async () => {
    const lines = ['k,x,s'];
    const xs = ['2.5', '0.00001', '1e-7', 'nan', '', '3', '-0.5'];
    for (let i = 0; i < 29; i++) lines.push([i % 5 === 2 ? '' : String((i % 4) - 1), xs[i % xs.length], i % 6 === 1 ? '' : `s${i % 3}`].join(','));
    await expectCsvDigests('map', lines, { k: 'int', x: 'float', s: 'string' }, 100, (read) => [
      chain(read, ['m', 'map', { column: 's', mapping: { s0: 10, s1: 2.5 }, as: 'v' }, 'df'], ['m2', 'map', { column: 'k', mapping: { '-1': 'minus one', '0': 'zero', '2': 'two' } }, 'df']),
      chain(read, ['m', 'map', { column: 'x', mapping: { '2.5': true, '0.00001': false, '1e-7': true, '3': false } }, 'df'], ['m2', 'map', { column: 'k', mapping: { '1': 7, '2': 9 }, as: 'k2' }, 'df']),
    ]);
  }, 600_000);

  it('cumsum / cumprod / cummax / cummin and ffill / bfill across partitions (int / float / string columns with nulls, NaN and inf, partitions with no present value) give the local digest', async () => {
    const lines = ['k,x,s'];
    const xs = ['1.5', '', 'nan', '-2', 'inf', '0.25', '', '', '', '', '', '3', '-inf', '4'];
    for (let i = 0; i < 41; i++) lines.push([i % 5 === 2 || (i > 14 && i < 22) ? '' : String((i % 7) - 3), xs[i % xs.length], i % 4 === 1 || (i > 20 && i < 30) ? '' : `s${i % 3}`].join(','));
    await expectCsvDigests('scan', lines, { k: 'int', x: 'float', s: 'string' }, 60, (read) => [
      chain(read, ['c', 'df_cumsum', {}, 'df'], ['p', 'df_cumprod', { columns: ['k'], suffix: '_p' }, 'df']),
      chain(read, ['mx', 'df_cummax', { suffix: '_max' }, 'df'], ['mn', 'df_cummin', { columns: ['x'] }, 'df']),
      chain(read, ['f', 'ffill', {}, 'df']),
      chain(read, ['b', 'bfill', { columns: ['s', 'x'], suffix: '_b' }, 'df']),
    ]);
  }, 600_000);
});
