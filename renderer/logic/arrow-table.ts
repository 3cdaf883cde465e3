/** Decoding a dataframe result's Arrow IPC preview (base64) into columns the table view reads. */
import { tableFromIPC } from 'apache-arrow';

export interface DecodedTable {
  columns: { name: string; type: string }[];
  numRows: number;
  /** The cell at (row, column) as display text. */
  cell(row: number, col: number): string;
}

export function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function formatCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : Number.isFinite(v) ? String(Number(v.toPrecision(8))) : String(v);
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') {
    try {
      return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
    } catch {
      return String(v);
    }
  }
  return String(v);
}

export function decodeTable(ipcBase64: string): DecodedTable {
  const t = tableFromIPC(base64ToBytes(ipcBase64));
  const vectors = t.schema.fields.map((_, i) => t.getChildAt(i));
  return {
    columns: t.schema.fields.map((f) => ({ name: f.name, type: String(f.type) })),
    numRows: t.numRows,
    cell: (row, col) => formatCell(vectors[col]?.get(row)),
  };
}
