/**
 * A dataframe output as a run reports it: the total row count (each partition's ChunkValue
 * carries its rows, so nothing is decoded to count), the compile-time columns, and Arrow IPC
 * bytes of at most the first TABLE_PREVIEW_ROWS rows, base64 for the JSON channel to the
 * renderer. Only the partitions the preview needs are decoded.
 */
import type { ChunkValue } from '../../common/arrays';
import type { ResultValue } from '../../common/results';
import type { NodeOutput } from '../../common/tasks';
import { concatTables, fromIPC, head, toIPC } from '../../worker/kernels/df/index';

export const TABLE_PREVIEW_ROWS = 10_000;

export function tableResult(out: Extract<NodeOutput, { kind: 'table' }>, parts: ChunkValue[], limit = TABLE_PREVIEW_ROWS): ResultValue {
  const [only] = parts;
  // One partition that is its own preview (a groupby's result): its bytes as the worker wrote
  // them. Decoding, slicing and encoding them again gave the same table and took 1-2 ms of main's
  // thread at the end of every such run (issue 30: a warm run's fixed part).
  if (parts.length === 1 && only.kind === 'table' && only.rows <= limit) {
    return { kind: 'table', rows: only.rows, columns: out.columns, ipc: Buffer.from(only.ipc.buffer, only.ipc.byteOffset, only.ipc.byteLength).toString('base64'), truncated: false };
  }
  let rows = 0;
  const tables = [];
  for (const [i, v] of parts.entries()) {
    if (v.kind !== 'table') throw new Error(`output partition ${out.keys[i]} is a ${v.kind}, expected a dataframe partition`);
    if (rows < limit || tables.length === 0) tables.push(fromIPC(v.ipc));
    rows += v.rows;
  }
  const preview = head(concatTables(tables), limit);
  return { kind: 'table', rows, columns: out.columns, ipc: Buffer.from(toIPC(preview)).toString('base64'), truncated: rows > preview.numRows };
}
