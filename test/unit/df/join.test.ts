import { join as pathJoin } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCsv } from '../../../worker/kernels/df/csv';
import { broadcastJoin, hashJoin, type JoinHow } from '../../../worker/kernels/df/join';
import { select } from '../../../worker/kernels/df/ops';
import { hashPartition } from '../../../worker/kernels/df/rows';
import { concatTables } from '../../../worker/kernels/df/gather';
import { expected, expectRowsClose, FIXTURES, people, rows, type Row } from './helpers';

const depts = () => readCsv({ path: pathJoin(FIXTURES, 'depts.csv'), start: 0, end: null }).table;
const left = () => select(people(), ['id', 'dept', 'age']);

function sorted(rs: Row[]): Row[] {
  const key = (r: Row) => [r.id === null ? Infinity : (r.id as number), String(r.dept)] as const;
  return [...rs].sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1].localeCompare(key(b)[1]));
}

describe('hash join', () => {
  for (const how of ['inner', 'left', 'outer'] as JoinHow[]) {
    it(`${how} join matches pandas.merge`, () => {
      const out = hashJoin(left(), depts(), { how, on: ['dept'] });
      expect(out.schema.fields.map((f) => f.name)).toEqual(['id', 'dept', 'age', 'floor', 'budget']);
      expectRowsClose(sorted(rows(out)), expected[`join_${how}`] as Row[]);
    });

    it(`${how} join after hash-partitioning both sides gives the same rows`, () => {
      const l = left();
      const ls = [l.slice(0, 20), l.slice(20)].map((p) => hashPartition(p, ['dept'], 4));
      const rs = hashPartition(depts(), ['dept'], 4);
      const parts = [0, 1, 2, 3].map((p) => hashJoin(concatTables([ls[0][p], ls[1][p]]), rs[p], { how, on: ['dept'] }));
      expectRowsClose(sorted(parts.flatMap(rows)), expected[`join_${how}`] as Row[]);
    });
  }

  it('broadcasts a small side for inner and left joins only', () => {
    const l = left();
    const small = depts();
    const parts = [l.slice(0, 25), l.slice(25)].map((p) => broadcastJoin(p, small, { how: 'left', on: ['dept'] }));
    expectRowsClose(sorted(parts.flatMap(rows)), expected.join_left as Row[]);
    expect(() => broadcastJoin(l, small, { how: 'outer', on: ['dept'] })).toThrow('cannot broadcast');
  });

  it('suffixes same-named columns and joins on differently named keys', () => {
    const right2 = readCsvText('dept,age\neng,100\nops,200\n');
    const out = hashJoin(left(), right2, { how: 'inner', on: ['dept'] });
    expect(out.schema.fields.map((f) => f.name)).toEqual(['id', 'dept', 'age_x', 'age_y']);
    expectRowsClose(sorted(rows(out)), expected.join_suffix as Row[]);
    const r3 = readCsvText('d,floor\neng,3\n');
    const out3 = hashJoin(left(), r3, { how: 'inner', leftOn: ['dept'], rightOn: ['d'] });
    expect(rows(out3).every((r) => r.d === 'eng' && r.dept === 'eng' && r.floor === 3)).toBe(true);
    expect(() => hashJoin(left(), r3, { how: 'inner', on: ['d'] })).toThrow("join (left): unknown column 'd'");
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
function readCsvText(text: string) {
  const path = pathJoin(mkdtempSync(pathJoin(tmpdir(), 'gpuflow-join-')), 'r.csv');
  writeFileSync(path, text);
  return readCsv({ path, start: 0, end: null }).table;
}
