/**
 * Partitions cross processes as Arrow IPC stream bytes. Worker tasks may take either form; these
 * two helpers are the only conversion points.
 *
 * toIPC first copies any buffer that shares memory with a buffer written before it: a column that
 * is another column unchanged (`assign z = x` on a decoded table views the same bytes) would
 * otherwise be lost, because apache-arrow's writer joins body buffers that lie in one ArrayBuffer
 * and touch or overlap into one range (`collapseContiguousByteRanges`), which shortens the body
 * when two of them are the same bytes ("Expected to read N bytes for message body", issue 18
 * item 9).
 */
import { tableFromIPC, tableToIPC, makeData, Table, RecordBatch, type Data } from 'apache-arrow';

export type TableLike = Table | Uint8Array;

type Range = { buffer: ArrayBufferLike; start: number; end: number };

function overlaps(seen: Range[], v: ArrayBufferView): boolean {
  if (v.byteLength === 0) return false;
  const s = v.byteOffset;
  const e = s + v.byteLength;
  return seen.some((r) => r.buffer === v.buffer && s < r.end && r.start < e);
}

function note(seen: Range[], v: ArrayBufferView | undefined | null): void {
  if (v && v.byteLength > 0) seen.push({ buffer: v.buffer, start: v.byteOffset, end: v.byteOffset + v.byteLength });
}

function copyOf<T extends ArrayBufferView | undefined | null>(v: T): T {
  if (!v) return v;
  return (v as unknown as { slice(): T }).slice();
}

/** `d` with every buffer that overlaps one in `seen` copied (children and dictionaries too). */
function unaliased(d: Data, seen: Range[]): Data {
  const own = [d.valueOffsets, d.values, d.nullBitmap, d.typeIds] as (ArrayBufferView | undefined)[];
  const clash = own.some((b) => b && overlaps(seen, b));
  const children = d.children.map((c) => unaliased(c as Data, seen));
  const out = clash || children.some((c, i) => c !== d.children[i])
    ? makeData({
      type: d.type, offset: d.offset, length: d.length, nullCount: d.nullCount,
      nullBitmap: clash ? copyOf(d.nullBitmap) : d.nullBitmap,
      valueOffsets: clash ? copyOf(d.valueOffsets) : d.valueOffsets,
      data: clash ? copyOf(d.values) : d.values,
      typeIds: clash ? copyOf(d.typeIds) : d.typeIds,
      children, dictionary: d.dictionary, child: children[0],
    } as never) as Data
    : d;
  for (const b of [out.valueOffsets, out.values, out.nullBitmap, out.typeIds] as (ArrayBufferView | undefined)[]) note(seen, b);
  return out;
}

/** The table with no two body buffers of one record batch sharing memory. */
function withoutAliases(table: Table): Table {
  let changed = false;
  const batches = table.batches.map((b) => {
    const seen: Range[] = [];
    const kids = b.data.children.map((c) => unaliased(c as Data, seen));
    if (kids.every((c, i) => c === b.data.children[i])) return b;
    changed = true;
    return new RecordBatch(b.schema, makeData({ type: b.data.type, length: b.numRows, nullCount: 0, children: kids }));
  });
  return changed ? new Table(table.schema, batches) : table;
}

/**
 * Small partitions this process encoded, by their bytes: a task whose input is an output of this
 * same worker (a combine of the partials it made) reads the table back without decoding. A
 * groupby partial of a few dozen rows costs about 0.2 ms to decode, as much as its kernel, and a
 * combine of 8 of them sat on the run's critical path (issue 30: a warm run's fixed part). Only
 * small ones: the table beside its bytes is memory the worker's store does not count, and a large
 * partition decodes as views over its bytes, cheaply. Weak: the entry goes with the bytes.
 */
const encoded = new WeakMap<Uint8Array, Table>();
export const REMEMBERED_IPC_BYTES = 64 * 1024;

export function toIPC(table: Table): Uint8Array {
  const bytes = tableToIPC(withoutAliases(table), 'stream');
  if (bytes.byteLength <= REMEMBERED_IPC_BYTES) encoded.set(bytes, table);
  return bytes;
}

/** The table of `t`'s bytes: the one they were encoded from here, when these are those bytes (same object), else decoded. */
export function fromIPC(t: TableLike): Table {
  if (!(t instanceof Uint8Array)) return t;
  return encoded.get(t) ?? tableFromIPC(t);
}
