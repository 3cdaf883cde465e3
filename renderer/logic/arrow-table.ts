/** Decoding a dataframe result's Arrow IPC preview (base64) into columns the table view reads. */
import { DataType, DateUnit, Precision, TimeUnit, tableFromIPC } from 'apache-arrow';

export interface DecodedTable {
  /** `type` in words a person reads ("string (dictionary)"), `arrowType` as Arrow names it. */
  columns: { name: string; type: string; arrowType: string }[];
  numRows: number;
  /** The cell at (row, column) as display text. */
  cell(row: number, col: number): string;
  /** The cell's value as Arrow gives it (number, bigint, string, Date ms, null…), for sorting. */
  value(row: number, col: number): unknown;
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

const UNIT: Record<number, string> = { [TimeUnit.SECOND]: 's', [TimeUnit.MILLISECOND]: 'ms', [TimeUnit.MICROSECOND]: 'µs', [TimeUnit.NANOSECOND]: 'ns' };

/**
 * An Arrow type in the words of pandas / NumPy users: Dictionary<Int32, Utf8> is "string
 * (dictionary)", Float64 "float64", Int32 "int32", Utf8 "string", Timestamp<MILLISECOND> "datetime
 * (ms)", Date32<DAY> "date". Anything not named here falls back to Arrow's own name in lower case.
 */
export function humanType(t: DataType): string {
  if (DataType.isDictionary(t)) return `${humanType(t.dictionary)} (dictionary)`;
  if (DataType.isUtf8(t) || DataType.isLargeUtf8(t)) return 'string';
  if (DataType.isInt(t)) return `${t.isSigned ? 'int' : 'uint'}${t.bitWidth}`;
  if (DataType.isFloat(t)) return t.precision === Precision.HALF ? 'float16' : t.precision === Precision.SINGLE ? 'float32' : 'float64';
  if (DataType.isBool(t)) return 'bool';
  if (DataType.isTimestamp(t)) return `datetime (${UNIT[t.unit] ?? '?'}${t.timezone ? `, ${t.timezone}` : ''})`;
  if (DataType.isDate(t)) return t.unit === DateUnit.DAY ? 'date' : 'date (ms)';
  if (DataType.isTime(t)) return `time (${UNIT[t.unit] ?? '?'})`;
  if (DataType.isDuration(t)) return `duration (${UNIT[t.unit] ?? '?'})`;
  if (DataType.isDecimal(t)) return `decimal(${t.precision}, ${t.scale})`;
  if (DataType.isList(t)) return `list of ${t.children[0] ? humanType(t.children[0].type) : '?'}`;
  if (DataType.isStruct(t)) return 'struct';
  if (DataType.isBinary(t) || DataType.isLargeBinary(t) || DataType.isFixedSizeBinary(t)) return 'bytes';
  if (DataType.isNull(t)) return 'null';
  return String(t).toLowerCase();
}

export function decodeTable(ipcBase64: string): DecodedTable {
  const t = tableFromIPC(base64ToBytes(ipcBase64));
  const vectors = t.schema.fields.map((_, i) => t.getChildAt(i));
  return {
    columns: t.schema.fields.map((f) => ({ name: f.name, type: humanType(f.type), arrowType: String(f.type) })),
    numRows: t.numRows,
    cell: (row, col) => formatCell(vectors[col]?.get(row)),
    value: (row, col) => vectors[col]?.get(row),
  };
}
