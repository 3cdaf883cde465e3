/**
 * Partitions cross processes as Arrow IPC stream bytes. Worker tasks may take either form; these
 * two helpers are the only conversion points.
 */
import { tableFromIPC, tableToIPC, type Table } from 'apache-arrow';

export type TableLike = Table | Uint8Array;

export function toIPC(table: Table): Uint8Array {
  return tableToIPC(table, 'stream');
}

export function fromIPC(t: TableLike): Table {
  return t instanceof Uint8Array ? tableFromIPC(t) : t;
}
