/**
 * Issue 30 (a warm run's fixed part): a small partition a worker encoded is read back by a task on
 * that same worker (a combine of the partials it made) without decoding its bytes again
 * (worker/kernels/df/ipc.ts). The oracle for the answers is the path of before: the same partials
 * decoded from copies of their bytes, as a task on another worker reads them.
 */
import type { Table } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { fromIPC, REMEMBERED_IPC_BYTES, toIPC } from '../../../worker/kernels/df/ipc';
import { groupbyAggregate, groupbyChunk, groupbyCombine, type GroupbySpec } from '../../../worker/kernels/df/groupby';
import { timeseries } from '../../../worker/kernels/df/timeseries';
import { floatVector } from '../../../worker/kernels/df/build';
import { tableOf } from '../../../worker/kernels/df/gather';
import { rows, wire } from './helpers';

const spec: GroupbySpec = { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }, { column: 'y', agg: 'std' }, { column: 'id', agg: 'max' }] };
const partition = (p: number, n = 200): Table => timeseries({ seed: 7, rowStart: p * n, rowCount: n });

describe('fromIPC of bytes this process wrote', () => {
  it('gives back the table they were written from; a copy of the bytes is decoded, with the same rows', () => {
    const t = groupbyChunk(partition(0), spec);
    const bytes = toIPC(t);
    expect(bytes.byteLength).toBeLessThanOrEqual(REMEMBERED_IPC_BYTES);
    expect(fromIPC(bytes)).toBe(t);
    const decoded = fromIPC(bytes.slice());
    expect(decoded).not.toBe(t);
    expect(rows(decoded)).toEqual(rows(t));
  });

  it('decodes a partition larger than REMEMBERED_IPC_BYTES (its table is not kept beside its bytes)', () => {
    const n = REMEMBERED_IPC_BYTES / 8 + 1;
    const values = Float64Array.from({ length: n }, (_, i) => i / 4);
    const big = tableOf([{ name: 'v', vector: floatVector(values) }]);
    const bytes = toIPC(big);
    expect(bytes.byteLength).toBeGreaterThan(REMEMBERED_IPC_BYTES);
    const back = fromIPC(bytes);
    expect(back).not.toBe(big);
    expect(back.getChild('v')?.toArray()).toEqual(values);
  });

  it('a combine and aggregate of partials read back here equal those of partials decoded from copies', () => {
    const partials = [0, 1, 2, 3, 4, 5].map((p) => toIPC(groupbyChunk(partition(p), spec)));
    const here = partials.map((b) => fromIPC(b));
    const elsewhere = partials.map((b) => fromIPC(b.slice()));
    const combined = [groupbyCombine(here.slice(0, 3), spec), groupbyCombine(here.slice(3), spec)];
    const combinedElsewhere = [groupbyCombine(elsewhere.slice(0, 3), spec), groupbyCombine(elsewhere.slice(3), spec)];
    const result = groupbyAggregate(combined.map((t) => fromIPC(toIPC(t))), spec);
    const oracle = groupbyAggregate(combinedElsewhere.map(wire), spec);
    expect(result.numRows).toBeGreaterThan(10);
    expect(rows(result)).toEqual(rows(oracle));
    // The bytes a task sends on are the same too.
    expect(Buffer.from(toIPC(result)).equals(Buffer.from(toIPC(oracle)))).toBe(true);
  });
});
