import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CsvError, csvPartitions, inferCsvTypes, readCsv } from '../../../worker/kernels/df/csv';
import { concatTables } from '../../../worker/kernels/df/gather';
import { expected, expectRowsClose, FIXTURES, rows, type Row } from './helpers';

const whole = (path: string) => ({ path, start: 0, end: null });

describe('csv source', () => {
  it('reads people.csv with inferred types as pandas does', () => {
    const { table, skipped } = readCsv(whole(join(FIXTURES, 'people.csv')));
    expect(skipped).toBe(0);
    expect(table.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual([
      'id:Int64', 'name:Dictionary<Int32, Utf8>', 'dept:Dictionary<Int32, Utf8>', 'age:Int64', 'salary:Float64', 'start:Dictionary<Int32, Utf8>', 'active:Bool',
    ]);
    expectRowsClose(rows(table), expected.people as Row[]);
  });

  it("skips malformed rows and counts them under 'skip'", () => {
    const { table, skipped } = readCsv(whole(join(FIXTURES, 'bad.csv')), { onBadLines: 'skip' });
    expect(skipped).toBe(2);
    expectRowsClose(rows(table), expected.bad_skip as Row[]);
  });

  it("names the file and line of a malformed row under 'error'", () => {
    const path = join(FIXTURES, 'bad.csv');
    expect(() => readCsv(whole(path))).toThrow(CsvError);
    // pandas says: "Expected 3 fields in line 4, saw 4".
    expect(expected.bad_error).toContain('line 4');
    expect(() => readCsv(whole(path))).toThrow(`${path} line 4: expected 3 fields, found 4`);
    // A byte range starting after line 4 reports the next bad line by its line in the file.
    const after5 = 'a,b,c\n1,x,0.5\n2,y,1.5\n3,z,2.5,extra\n'.length;
    expect(() => readCsv({ path, start: after5, end: null })).toThrow(`${path} line 7: expected 3 fields, found 5`);
  });

  it('names the line and column of a value that does not parse as its given type', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpuflow-csv-'));
    const path = join(dir, 'typed.csv');
    writeFileSync(path, 'a,b\n1,2.5\n2,oops\n3,4\n');
    expect(() => readCsv(whole(path), { types: { b: 'float' } })).toThrow(`${path} line 3: column 'b': expected float, found 'oops'`);
    const r = readCsv(whole(path), { types: { b: 'float' }, onBadLines: 'skip' });
    expect(r.skipped).toBe(1);
    expect(rows(r.table)).toEqual([{ a: 1, b: 2.5 }, { a: 3, b: 4 }]);
    expect(() => readCsv(whole(path), { types: { c: 'int' } })).toThrow("types names column 'c', which the file does not have (columns: a, b)");
  });

  it('handles quotes, embedded delimiters and newlines, another delimiter, and empty fields', () => {
    const { table } = readCsv(whole(join(FIXTURES, 'quoted.csv')), { delimiter: ';' });
    expectRowsClose(rows(table), expected.quoted as Row[]);
  });

  it('gives the same rows from byte ranges of any blocksize as from the whole file', () => {
    const path = join(FIXTURES, 'people.csv');
    const types = inferCsvTypes(path, {}, 300);
    expect(types).toMatchObject({ id: 'int', age: 'int', salary: 'float', active: 'bool', name: 'string' });
    const want = rows(readCsv(whole(path), { types }).table);
    for (const bs of [13, 64, 100, 333, 1579, 5000]) {
      const parts = csvPartitions(path, bs);
      const tables = parts.map((p) => readCsv(p, { types }).table);
      expect(rows(concatTables(tables)), `blocksize ${bs}`).toEqual(want);
    }
  });

  it('expands globs into sorted file partitions', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpuflow-glob-'));
    for (const f of ['b.csv', 'a.csv', 'c.txt']) writeFileSync(join(dir, f), 'v\n1\n');
    expect(csvPartitions(join(dir, '*.csv')).map((p) => p.path)).toEqual([join(dir, 'a.csv'), join(dir, 'b.csv')]);
    expect(() => csvPartitions(join(dir, '*.tsv'))).toThrow('no files match');
  });
});
