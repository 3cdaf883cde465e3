/**
 * Issue 18 item 8: a table's digest covers its logical content, not its Arrow IPC encoding. The
 * same rows written with another dictionary id (what another process or a later run in a
 * long-lived worker gives), another dictionary order, several record batches, plain Utf8 instead
 * of a dictionary, or Int32 instead of Int64 get one digest; a changed value does not.
 */
import {
  Dictionary, Int32, RecordBatch, Schema, Field, Table, Utf8, makeData, makeVector, type Vector,
} from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { digestOf, loadTableDigests } from '../../../main/api/run-record';
import type { RunResult } from '../../../common/results';
import { floatVector, int32Vector, intVector, stringVector, timestampVector, utf8Vector } from '../../../worker/kernels/df/build';
import { tableOf } from '../../../worker/kernels/df/gather';
import { toIPC } from '../../../worker/kernels/df/ipc';

const names = ['eve', 'bob', null, 'eve', 'ann', 'bob'];
const ids = [5, -3, 7, 2 ** 40, 0, 1];
const xs = [0.5, NaN, -1.25, 1e-9, 3, 2];
const ts = [0, 86_400_000, 1_600_000_000_123, 1_700_000_000_000, 5, 1_600_000_000_124];

function dictColumn(order: string[], id?: number): Vector {
  const codes = Int32Array.from(names, (s) => (s === null ? 0 : order.indexOf(s)));
  const valid = Uint8Array.from(names, (s) => (s === null ? 0 : 1));
  const v = stringVector(codes, order, valid);
  if (id === undefined) return v;
  // The same column as another process would decode it: an explicit dictionary id.
  return makeVector(v.data[0].clone(new Dictionary(new Utf8(), new Int32(), id)));
}

function table(name: Vector, intCol: Vector, x = xs): Table {
  return tableOf([
    { name: 'name', vector: name },
    { name: 'id', vector: intCol },
    { name: 'x', vector: floatVector(Float64Array.from(x)) },
    { name: 't', vector: timestampVector(Float64Array.from(ts)) },
  ]);
}

function digest(t: Table): string {
  const r: RunResult = {
    runId: 'r', status: 'finished', stats: { tasks: 0, durationMs: 0, workers: [], transfers: { count: 0, bytes: 0 }, restarts: 0 },
    results: { t: { kind: 'table', rows: t.numRows, columns: [{ name: 'name', type: 'string' }], ipc: Buffer.from(toIPC(t)).toString('base64'), truncated: false } },
  };
  return digestOf(r);
}

/** `t` as two record batches (rows 0..2 and 3..). */
function chunked(t: Table): Table {
  const a = t.slice(0, 3).batches;
  const b = t.slice(3).batches;
  return new Table(new Schema(t.schema.fields.map((f) => new Field(f.name, f.type, true))), [...a, ...b].map((x) => new RecordBatch(x.schema, makeData({ type: x.data.type, length: x.numRows, nullCount: 0, children: x.data.children }))));
}

// digestOf reads table results through Apache Arrow, loaded on demand (main/api/run-record.ts);
// the describe block below digests while it is collected.
await loadTableDigests();

describe('table digests', () => {
  const base = table(dictColumn(['ann', 'bob', 'eve']), intVector(Float64Array.from(ids)));
  const d0 = digest(base);

  it('do not depend on the dictionary id, order or encoding of strings, the int width or the chunking', () => {
    expect(digest(table(dictColumn(['ann', 'bob', 'eve'], 0), intVector(Float64Array.from(ids))))).toBe(d0);
    expect(digest(table(dictColumn(['eve', 'zed', 'bob', 'ann'], 1), intVector(Float64Array.from(ids))))).toBe(d0);
    expect(digest(table(utf8Vector(names), intVector(Float64Array.from(ids))))).toBe(d0);
    expect(digest(chunked(base))).toBe(d0);
    // Int32 holds the small ids; the int column keeps them exact either way.
    const small = ids.map((v) => (v > 2 ** 31 ? 9 : v));
    expect(digest(table(utf8Vector(names), int32Vector(Int32Array.from(small))))).toBe(digest(table(dictColumn(['ann', 'bob', 'eve'], 3), intVector(Float64Array.from(small)))));
  });

  it('differ when a value differs', () => {
    const other = digest(table(dictColumn(['ann', 'bob', 'eve']), intVector(Float64Array.from(ids.map((v, i) => (i === 3 ? v + 1 : v))))));
    expect(other).not.toBe(d0);
    expect(digest(table(dictColumn(['ann', 'bob', 'eve']), intVector(Float64Array.from(ids)), xs.map((v, i) => (i === 0 ? 0.51 : v))))).not.toBe(d0);
    const renamed = names.map((s) => (s === 'ann' ? 'anne' : s));
    expect(digest(table(utf8Vector(renamed), intVector(Float64Array.from(ids))))).not.toBe(d0);
  });
});
