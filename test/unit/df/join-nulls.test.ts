/**
 * Null keys in merge: pandas matches a null (NaN / None) key with a null key, in string and
 * float keys and in multi-column keys; `nulls: 'never'` (the merge node's null_keys: never) is
 * SQL's join. Expected rows come from /usr/bin/python3's pandas.merge over the same CSV files.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCsv } from '../../../worker/kernels/df/csv';
import { concatTables } from '../../../worker/kernels/df/gather';
import { hashJoin, type JoinHow } from '../../../worker/kernels/df/join';
import { hashPartition } from '../../../worker/kernels/df/rows';
import { expectRowsClose, rows, type Row } from './helpers';

const dir = mkdtempSync(join(tmpdir(), 'gpuflow-join-nulls-'));
writeFileSync(join(dir, 'l.csv'), 'k,f,a\nx,1.5,1\n,2.5,2\ny,,3\n,,4\nx,1.5,5\nz,9.5,6\n');
writeFileSync(join(dir, 'r.csv'), 'k,f,b\nx,1.5,10\n,,20\n,2.5,30\nw,,40\ny,7.5,50\n');
const table = (name: string) => readCsv({ path: join(dir, name), start: 0, end: null }, { types: { k: 'string', f: 'float', [name === 'l.csv' ? 'a' : 'b']: 'int' } }).table;

const ONS = [['k'], ['f'], ['k', 'f']];
const HOWS: JoinHow[] = ['inner', 'left', 'right', 'outer'];

/** pandas.merge of the two files for every how and key list, in one python run; rows sorted by (a, b), NaN as null. */
const PANDAS = JSON.parse(
  execFileSync('/usr/bin/python3', ['-c', `
import json, sys, pandas as pd
l = pd.read_csv(sys.argv[1] + '/l.csv', dtype={'k': object}); r = pd.read_csv(sys.argv[1] + '/r.csv', dtype={'k': object})
out = {}
for on in json.loads(sys.argv[2]):
    for how in json.loads(sys.argv[3]):
        m = l.merge(r, on=on, how=how).sort_values(['a', 'b'], na_position='last', kind='stable')
        out[how + ' ' + ','.join(on)] = json.loads(m.to_json(orient='records'))
print(json.dumps(out))`, dir, JSON.stringify(ONS), JSON.stringify(HOWS)], { encoding: 'utf8' }),
) as Record<string, Row[]>;
const pandas = (how: JoinHow, on: string[]): Row[] => PANDAS[`${how} ${on.join(',')}`];

const byAB = (rs: Row[]) => [...rs].sort((p, q) => ((p.a as number) ?? Infinity) - ((q.a as number) ?? Infinity) || ((p.b as number) ?? Infinity) - ((q.b as number) ?? Infinity));

describe('merge matches null keys as pandas', () => {
  for (const on of ONS)
    for (const how of HOWS) {
      it(`${how} on ${on.join(', ')}`, () => {
        const got = byAB(rows(hashJoin(table('l.csv'), table('r.csv'), { how, on })));
        const want = pandas(how, on);
        expect(got.length).toBe(want.length);
        expectRowsClose(got, want);
      });
    }

  it('after hash-partitioning both sides (nulls go to one part)', () => {
    const ls = hashPartition(table('l.csv'), ['k'], 3);
    const rs = hashPartition(table('r.csv'), ['k'], 3);
    const got = byAB([0, 1, 2].flatMap((p) => rows(hashJoin(ls[p], rs[p], { how: 'inner', on: ['k'] }))));
    expectRowsClose(got, pandas('inner', ['k']));
    expect(rows(concatTables(ls)).length).toBe(6);
  });

  it("nulls: 'never' is SQL's join: a null key matches nothing", () => {
    const got = rows(hashJoin(table('l.csv'), table('r.csv'), { how: 'inner', on: ['k'], nulls: 'never' }));
    // Only x (rows a=1, a=5 with b=10) and y (a=3 with b=50) match.
    expect(byAB(got).map((r) => [r.a, r.b])).toEqual([[1, 10], [3, 50], [5, 10]]);
  });
});
