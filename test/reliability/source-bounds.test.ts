/**
 * Resource bounds of the file sources, decided from file metadata (issue 19):
 *  - read_csv with blocksize 1 on a 30 MB CSV is refused at compile, naming the task count it
 *    would make (it used to build 30 million tasks and exhaust the heap);
 *  - a Parquet file over 2 GiB (made here as a sparse file: a small valid Parquet file whose
 *    footer is moved 2.2 GiB further on — column chunk offsets are absolute, so it stays valid,
 *    and it costs kilobytes of disk) compiles to one task per row group from ranged footer reads,
 *    and each row group reads back the values written (a whole-file read is refused over 2 GiB);
 *  - rows appended to a CSV after compile are not read by the run (ranges end at the size seen).
 * Time taken and the longest event-loop stall are figures, not assertions.
 */
import { appendFileSync, closeSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../main/engine/compile/compile';
import { MAX_SOURCE_PARTITIONS } from '../../main/engine/compile/limits';
import { WorkflowErrors } from '../../main/engine/errors';
import { validateWorkflow } from '../../main/engine/validate';
import { readCsv } from '../../worker/kernels/df/csv';
import { readParquet } from '../../worker/kernels/df/parquet';
import { figures, tempDir } from './helpers';

let dir: string;
beforeAll(() => {
  dir = tempDir('gpuflow-sources-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const doc = (op: string, params: Record<string, unknown>) => ({ format: 'gpuflow.workflow/1', nodes: [{ id: 'src', op, params }], edges: [] });

function compileErrors(d: unknown): string[] {
  try {
    compileWorkflow(validateWorkflow(d));
    return [];
  } catch (e) {
    if (e instanceof WorkflowErrors) return e.errors.map((x) => x.message);
    return [(e as Error).message];
  }
}

describe('read_csv bounds', () => {
  it('refuses blocksize 1 on a 30 MB CSV, naming the task count, without reading the data', () => {
    const file = path.join(dir, 'big.csv');
    const row = '123456,0.5,abcdefgh\n'; // 20 bytes
    const rows = (30 * 1024 * 1024) / row.length;
    writeFileSync(file, 'a,b,c\n' + row.repeat(rows));
    const size = statSync(file).size;
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const t0 = performance.now();
    const errors = compileErrors(doc('read_csv', { path: file, blocksize: 1 }));
    const ms = performance.now() - t0;
    loop.disable();
    figures('csv-blocksize-1', { bytes: size, ms: Math.round(ms), error: errors[0], rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20) });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('nodes[0].params.blocksize');
    // The count is the file's size in bytes: one task per byte.
    expect(errors[0]).toContain(`makes ${size} tasks`);
    expect(errors[0]).toContain(`at least ${Math.ceil(size / MAX_SOURCE_PARTITIONS)}`);
    rmSync(file);
  });

  it('does not read rows appended after compile', () => {
    const file = path.join(dir, 'growing.csv');
    writeFileSync(file, 'a,b\n1,2\n3,4\n5,6\n');
    const graph = compileWorkflow(validateWorkflow(doc('read_csv', { path: file })));
    appendFileSync(file, '7,8\n9,10\n');
    const read = [...graph.tasks.values()].filter((t) => t.op === 'read_csv');
    const got = read.map((t) => {
      const { path: p, start, end, ...opts } = (t.spec as unknown as { params: { path: string; start: number; end: number | null } }).params;
      return readCsv({ path: p, start, end }, opts).table.numRows;
    });
    figures('csv-appended', { tasks: read.length, rowsRead: got });
    expect(got).toEqual([3]);
  });
});

describe('read_parquet over 2 GiB', () => {
  it('compiles from the footer alone and reads each row group by ranges', async () => {
    const file = path.join(dir, 'huge.parquet');
    const n = 1000;
    const x = Array.from({ length: n }, (_, i) => i * 0.5);
    const id = Array.from({ length: n }, (_, i) => BigInt(i * 3));
    const small = new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'x', data: x, type: 'DOUBLE' }, { name: 'id', data: id, type: 'INT64' }], rowGroupSize: 250 }));
    const footerLen = Buffer.from(small.buffer, small.byteOffset + small.byteLength - 8, 4).readUInt32LE(0);
    const footerStart = small.byteLength - 8 - footerLen;
    const GAP = 2_400_000_000; // bytes, about 2.2 GiB
    const fd = openSync(file, 'w');
    try {
      writeSync(fd, small, 0, footerStart, 0);
      // Everything between the data and the footer is a hole: no disk used.
      writeSync(fd, small, footerStart, small.byteLength - footerStart, footerStart + GAP);
    } finally {
      closeSync(fd);
    }
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(2 * 2 ** 30);
    expect(() => readFileSync(file)).toThrow(); // what compile used to do

    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const t0 = performance.now();
    const graph = compileWorkflow(validateWorkflow(doc('read_parquet', { path: file })));
    const compileMs = performance.now() - t0;
    const tasks = [...graph.tasks.values()].filter((t) => t.op === 'read_parquet');
    const parts = [];
    for (const t of tasks) {
      const p = (t.spec as unknown as { params: { path: string; rowGroup: number } }).params;
      parts.push(await readParquet({ path: p.path, rowGroup: p.rowGroup }));
    }
    loop.disable();
    const gotX = parts.flatMap((tb) => Array.from(tb.getChild('x')!.toArray() as Float64Array));
    const gotId = parts.flatMap((tb) => Array.from(tb.getChild('id')!.toArray() as BigInt64Array, Number));
    figures('parquet-over-2gib', { bytes: size, rowGroups: tasks.length, compileMs: Math.round(compileMs), maxLoopStallMs: Math.round(loop.max / 1e6), rows: gotX.length });
    expect(tasks).toHaveLength(4);
    expect(gotX).toEqual(x);
    expect(gotId).toEqual(id.map(Number));
    rmSync(file);
  }, 60_000);
});
