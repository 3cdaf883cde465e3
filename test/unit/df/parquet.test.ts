import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parquetPartitions, readParquet, writeParquet } from '../../../worker/kernels/df/parquet';
import { concatTables } from '../../../worker/kernels/df/gather';
import { expected, expectRowsClose, FIXTURES, people, rows, type Row } from './helpers';

describe('parquet source and sink', () => {
  it('reads a pandas-written file by row group', async () => {
    const path = join(FIXTURES, 'people.parquet');
    const parts = parquetPartitions(path);
    expect(parts.map((p) => [p.rowGroup, p.rowStart, p.rowEnd])).toEqual([[0, 0, 15], [1, 15, 30], [2, 30, 40]]);
    const tables = await Promise.all(parts.map((p) => readParquet(p)));
    const all = rows(concatTables(tables));
    // The CSV fixture holds the same frame with dates as text; compare all but 'start'.
    const want = (expected.people as Row[]).map(({ start: _s, ...r }) => r);
    expectRowsClose(all.map(({ start: _s, ...r }) => r), want);
    expect(all[0].start).toBe(Date.UTC(2016, 6, 24));
    const one = await readParquet({ path, rowGroup: 1 }, ['id', 'salary']);
    expect(one.schema.fields.map((f) => f.name)).toEqual(['id', 'salary']);
    expect(rows(one)[0].id).toBe(16);
    await expect(readParquet({ path, rowGroup: 3 })).rejects.toThrow('has 3 row groups; row group 3 does not exist');
    await expect(readParquet({ path }, ['nope'])).rejects.toThrow("has no column 'nope'");
  });

  it('writes what it reads back, in row groups', async () => {
    const t = people();
    const path = join(mkdtempSync(join(tmpdir(), 'gpuflow-pq-')), 'p.parquet');
    writeParquet(t, path, 16);
    expect(parquetPartitions(path).length).toBe(3);
    const back = await readParquet({ path });
    expect(rows(back)).toEqual(rows(t));
  });
});
