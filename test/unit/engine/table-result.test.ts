/**
 * A table output as a run reports it (main/engine/table-result.ts). One partition within the
 * preview is sent as the worker wrote it (issue 30: decoding and encoding it again cost main 1-2 ms
 * at the end of every groupby run); several are decoded, concatenated and cut at the preview. The
 * oracle: the rows of the partitions themselves, and the digest of the preview made the old way
 * (decode, concatenate, head, encode).
 */
import { describe, expect, it } from 'vitest';
import type { ChunkValue } from '../../../common/arrays';
import type { ResultValue, RunResult } from '../../../common/results';
import type { NodeOutput } from '../../../common/tasks';
import { digestOf, loadTableDigests } from '../../../main/api/run-record';
import { tableResult } from '../../../main/engine/table-result';
import { concatTables, fromIPC, head, toIPC } from '../../../worker/kernels/df/index';
import { groupby } from '../../../worker/kernels/df/groupby';
import { timeseries } from '../../../worker/kernels/df/timeseries';
import { rows } from '../df/helpers';

const out = (keys: string[]): Extract<NodeOutput, { kind: 'table' }> => ({ kind: 'table', keys, columns: [] });
/** A partition as it arrives from a worker: its own bytes (a copy, as the IPC channel gives). */
const part = (rowStart: number, rowCount: number): ChunkValue => {
  const t = timeseries({ seed: 3, rowStart, rowCount });
  return { kind: 'table', ipc: toIPC(t).slice(), rows: t.numRows };
};
const decoded = (v: ResultValue) => {
  if (v.kind !== 'table') throw new Error(`expected a table, got ${v.kind}`);
  return fromIPC(Buffer.from(v.ipc, 'base64'));
};
const digest = (v: ResultValue) => digestOf({ results: { t: v } } as unknown as RunResult);

describe('tableResult', () => {
  it('one partition within the preview: its bytes as sent, its rows, the digest of the preview made by decoding and encoding', async () => {
    await loadTableDigests();
    const spec = { by: ['name'], aggs: [{ column: 'x', agg: 'mean' as const }] };
    const t = groupby(timeseries({ seed: 1, rowStart: 0, rowCount: 300 }), spec);
    const only: ChunkValue = { kind: 'table', ipc: toIPC(t).slice(), rows: t.numRows };
    const r = tableResult(out(['k']), [only]);
    expect(r).toMatchObject({ kind: 'table', rows: t.numRows, truncated: false });
    if (r.kind !== 'table' || only.kind !== 'table') throw new Error('not a table');
    expect(Buffer.from(r.ipc, 'base64').equals(Buffer.from(only.ipc))).toBe(true);
    expect(rows(decoded(r))).toEqual(rows(t));
    const before = { ...r, ipc: Buffer.from(toIPC(head(concatTables([fromIPC(only.ipc.slice())]), 10_000))).toString('base64') };
    expect(digest(r)).toBe(digest(before));
  });

  it('several partitions: concatenated, cut at the preview, every row counted', () => {
    const parts = [part(0, 40), part(40, 40), part(80, 40)];
    const r = tableResult(out(['a', 'b', 'c']), parts, 100);
    expect(r).toMatchObject({ kind: 'table', rows: 120, truncated: true });
    const want = rows(timeseries({ seed: 3, rowStart: 0, rowCount: 100 }));
    expect(rows(decoded(r))).toEqual(want);
  });

  it('one partition larger than the preview is cut', () => {
    const r = tableResult(out(['a']), [part(0, 50)], 20);
    expect(r).toMatchObject({ kind: 'table', rows: 50, truncated: true });
    expect(rows(decoded(r))).toEqual(rows(timeseries({ seed: 3, rowStart: 0, rowCount: 20 })));
  });
});
