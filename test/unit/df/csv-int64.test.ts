/**
 * read_csv of int64 columns above 2**53: read exactly (Arrow int64 from the text's digits), as
 * pandas does, whether the type is inferred or given; a value beyond int64 is refused when the
 * type is given. Expected values are the file's own digits.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCsv } from '../../../worker/kernels/df/csv';

const dir = mkdtempSync(join(tmpdir(), 'gpuflow-csv-int64-'));
const BIG = ['9007199254740993', '-9223372036854775808', '9223372036854775807', '', '+12'];
writeFileSync(join(dir, 'big.csv'), `id,v\n${BIG.map((v, i) => `${i},${v}`).join('\n')}\n`);
writeFileSync(join(dir, 'over.csv'), 'id,v\n0,9223372036854775808\n');

function column(types?: Record<string, 'int'>): Array<bigint | null> {
  const t = readCsv({ path: join(dir, 'big.csv'), start: 0, end: null }, types ? { types } : {}).table;
  const v = t.getChild('v')!;
  expect(String(v.type)).toBe('Int64');
  return Array.from({ length: t.numRows }, (_, i) => v.get(i) as bigint | null);
}

describe('read_csv int64 above 2**53', () => {
  const want = BIG.map((v) => (v === '' ? null : BigInt(v)));
  it('infers int64 and keeps every digit', () => expect(column()).toEqual(want));
  it('reads a given int column exactly', () => expect(column({ v: 'int' })).toEqual(want));
  it('refuses a value beyond int64 in an int column, naming it', () => {
    expect(() => readCsv({ path: join(dir, 'over.csv'), start: 0, end: null }, { types: { v: 'int' } })).toThrow(/expected int, found '9223372036854775808'/);
  });
});
