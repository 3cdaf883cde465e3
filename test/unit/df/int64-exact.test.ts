/**
 * int64 values beyond 2**53 keep every digit through Parquet (read and write) and through the
 * steps that key or order rows by them (groupby, merge, drop_duplicates, sort), as pandas' int64.
 * The Parquet file is written by our writer (Debian's python has no pyarrow), so its INT64 values
 * are checked twice: decoded by hyparquet itself and against the literal values written. The
 * keyed steps are compared with /usr/bin/python3 pandas over the same CSV file (read exactly,
 * test/unit/df/csv-int64.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Table } from 'apache-arrow';
import { parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { readCsv } from '../../../worker/kernels/df/csv';
import { dropDuplicates } from '../../../worker/kernels/df/rows';
import { groupby } from '../../../worker/kernels/df/groupby';
import { hashJoin } from '../../../worker/kernels/df/join';
import { readParquet, writeParquet } from '../../../worker/kernels/df/parquet';
import { sortTable } from '../../../worker/kernels/df/sort';
import { resampleBin, resampleFill } from '../../../worker/kernels/df/resample';
import { int64Vector, timestampVector } from '../../../worker/kernels/df/build';
import { tableOf } from '../../../worker/kernels/df/gather';

const dir = mkdtempSync(join(tmpdir(), 'gpuflow-int64-'));
// 2**53 and 2**53 + 1 are one float64 but two int64 keys; the extremes of int64; a null.
const K = ['9007199254740993', '9007199254740992', '', '-9223372036854775808', '9223372036854775807', '9007199254740993', '5', '9007199254740995'];
writeFileSync(join(dir, 'k.csv'), `k,v\n${K.map((k, i) => `${k},${i + 1}`).join('\n')}\n`);
const table = (): Table => readCsv({ path: join(dir, 'k.csv'), start: 0, end: null }, { types: { k: 'int', v: 'int' } }).table;
const WANT = K.map((k) => (k === '' ? null : BigInt(k)));

/** Column `name` of `t` as written: bigints stay bigints, so a lost digit shows. */
const col = (t: Table, name: string): unknown[] => Array.from({ length: t.numRows }, (_, i) => t.getChild(name)!.get(i) as unknown);
/** The rows of `t` as [k as a decimal string or null, v as a number]. */
const kv = (t: Table, v = 'v'): [string | null, number][] => col(t, 'k').map((k, i) => [k === null ? null : String(k), Number(col(t, v)[i])]);

/** pandas over the same file: k as Int64 (nullable, exact; parsed from the text by Python's int), each result as [[k, v], ...] with k as a string. */
const PANDAS = JSON.parse(
  execFileSync('/usr/bin/python3', ['-c', `
import json, sys, pandas as pd
d = pd.read_csv(sys.argv[1], dtype={'k': object})
d['k'] = pd.array([None if pd.isna(k) else int(k) for k in d['k']], dtype='Int64')  # pandas 1.5 reads Int64 text through float64
rows = lambda f, v='v': [[None if pd.isna(k) else str(int(k)), int(x)] for k, x in zip(f['k'], f[v])]
g = d.groupby('k').v.sum().reset_index()
s = d.sort_values('k', kind='stable', na_position='last')
u = d.drop_duplicates(subset=['k'])
m = d.merge(d.rename(columns={'v': 'w'}), on='k').sort_values(['v', 'w'])
print(json.dumps({'groupby': rows(g), 'sort': rows(s), 'unique': rows(u), 'merge': [[k, v, int(w)] for (k, v), w in zip(rows(m), m['w'])]}))`, join(dir, 'k.csv')], { encoding: 'utf8' }),
) as Record<string, unknown[][]>;

describe('int64 beyond 2**53, exactly', () => {
  it('Parquet: written as INT64 bigints and read back into Arrow Int64 unchanged', async () => {
    const path = join(dir, 'k.parquet');
    writeParquet(table(), path);
    // hyparquet's own decoding of the file: the values we wrote, digit for digit.
    const bytes = readFileSync(path);
    const raw = await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), utf8: true });
    expect(raw.map((r) => r.k)).toEqual(WANT);
    const back = await readParquet({ path });
    expect(String(back.schema.fields[0].type)).toBe('Int64');
    expect(col(back, 'k')).toEqual(WANT);
  });

  it('groupby keys them apart (2**53 and 2**53 + 1 are two groups), as pandas', () => {
    const g = groupby(table(), { by: ['k'], aggs: [{ column: 'v', agg: 'sum', as: 'v' }] });
    const got = kv(sortTable(g, ['k']));
    expect(got).toEqual(PANDAS.groupby);
  });

  it('sort orders them exactly, as pandas', () => expect(kv(sortTable(table(), ['k']))).toEqual(PANDAS.sort));

  it('drop_duplicates keeps one row per exact value, as pandas', () => expect(kv(dropDuplicates(table(), ['k'], 'first'))).toEqual(PANDAS.unique));

  it('merge matches exact values only, as pandas', () => {
    const t = table();
    const right = t.select(['k', 'v']);
    const m = hashJoin(t, right, { how: 'inner', on: ['k'], suffixes: ['', '_w'] });
    const got = kv(m).map(([k, v], i) => [k, v, Number(col(m, 'v_w')[i])]).sort((a, b) => (a[1] as number) - (b[1] as number) || (a[2] as number) - (b[2] as number));
    expect(got).toEqual(PANDAS.merge);
  });

  it('resample keeps an int64 sum beyond 2**53 through the fill of empty periods', () => {
    // Two 6-hour bins with a gap between: sums 2**53 + 1 and 3 (hand-computed), the empty bin 0.
    const hour = 3_600_000;
    const t = tableOf([
      { name: 't', vector: timestampVector(Float64Array.of(0, hour, 13 * hour)) },
      { name: 'v', vector: int64Vector(BigInt64Array.of(2n ** 53n, 1n, 3n)) },
    ]);
    const spec = { by: ['t'], aggs: [{ column: 'v', agg: 'sum' as const }] };
    const filled = resampleFill(groupby(resampleBin(t, 't', 6 * hour), spec), 't', 6 * hour, ['v_sum']);
    expect(col(filled, 'v_sum')).toEqual([2n ** 53n + 1n, 0n, 3n]);
  });
});
