/**
 * CSV text: a file or byte range of one parsed into typed text columns, without Arrow (the rules
 * are csv.ts's module comment). Main infers a CSV source's types with it while compiling, so the
 * engine need not load Apache Arrow for that (start-up: docs/architecture.md); csv.ts builds
 * the Arrow table from the same parse.
 */
import { closeSync, readSync } from 'node:fs';
import { openRegularFile, regularFileSize } from '../../../common/safe-files';
import { parseIsoTimestamp } from '../../../common/expr/check';
import { parseCsvText, type BadRow } from './csv-parse';
import { expandGlob } from './glob';

export type CsvType = 'int' | 'float' | 'bool' | 'string' | 'timestamp';

export interface CsvOptions {
  /** One character (default ','). */
  delimiter?: string;
  /** Whether the first line names the columns (default true). */
  header?: boolean;
  /** Column names when there is no header (default c0, c1, ...). */
  names?: string[];
  /** Types of some or all columns; the rest are inferred. */
  types?: Record<string, CsvType>;
  /** Malformed rows: 'error' (default) throws, 'skip' drops and counts them. */
  onBadLines?: 'error' | 'skip';
}

/** A part of a file: bytes [start, end), end null for the end of the file. */
export interface CsvPart {
  path: string;
  start: number;
  end: number | null;
}

export class CsvError extends Error {
  override readonly name = 'CsvError';
  constructor(readonly file: string, readonly line: number, detail: string) {
    super(`${file} line ${line}: ${detail}`);
  }
}

const CHUNK = 1 << 16;

function readAt(fd: number, pos: number, len: number): Uint8Array {
  const buf = new Uint8Array(len);
  let got = 0;
  while (got < len) {
    const r = readSync(fd, buf, got, len - got, pos + got);
    if (r === 0) break;
    got += r;
  }
  return got === len ? buf : buf.subarray(0, got);
}

/**
 * Longest CSV line read to find a line's end (a header, or the line a byte range starts in): a
 * file that is one 600 MB line must not be read into main's memory while types are inferred.
 */
export const MAX_CSV_LINE_BYTES = 16 * 1024 * 1024;

/** Position just after the first '\n' at or after `pos` (or the file size); `file` names errors. */
function afterNewline(fd: number, pos: number, size: number, file: string): number {
  const start = pos;
  while (pos < size) {
    if (pos - start > MAX_CSV_LINE_BYTES) throw new Error(`csv: ${file}: no line ends within ${MAX_CSV_LINE_BYTES} bytes after byte ${start}, the limit on one CSV line`);
    const b = readAt(fd, pos, Math.min(CHUNK, size - pos));
    const k = b.indexOf(10);
    if (k >= 0) return pos + k + 1;
    pos += b.length;
  }
  return size;
}

/** The first line start at or after `pos`: pos itself at 0 or after a newline. */
function lineStartFrom(fd: number, pos: number, size: number, file: string): number {
  if (pos === 0 || pos >= size) return Math.min(pos, size);
  return readAt(fd, pos - 1, 1)[0] === 10 ? pos : afterNewline(fd, pos, size, file);
}

/** Count of '\n' in bytes [0, end): the number of lines before a range (only on errors). */
function linesBefore(fd: number, end: number): number {
  let count = 0;
  for (let pos = 0; pos < end; pos += CHUNK) {
    const b = readAt(fd, pos, Math.min(CHUNK, end - pos));
    for (let i = 0; i < b.length; i++) if (b[i] === 10) count++;
  }
  return count;
}

const decoder = new TextDecoder('utf-8');

function decode(bytes: Uint8Array, atFileStart: boolean): string {
  const s = decoder.decode(bytes);
  return atFileStart && s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

const INT = /^[+-]?\d+$/;

/** Whether `v` is an integer that int64 holds: pandas reads such a column as int64, exactly. */
function isInt64Text(v: string): boolean {
  if (!INT.test(v)) return false;
  // Up to 18 digits always fit; longer ones are checked exactly (BigInt), not through a double.
  if (v.replace(/^[+-]/, '').length <= 18) return true;
  const x = BigInt(v);
  return x >= -(2n ** 63n) && x < 2n ** 63n;
}
export const FLOAT = /^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)$/i;
const BOOL = /^(true|false)$/i;

/** The narrowest type that holds every non-empty value. */
export function inferType(values: string[]): CsvType {
  let int = true;
  let float = true;
  let bool = true;
  let any = false;
  for (const v of values) {
    if (v === '') continue;
    any = true;
    if (int && !isInt64Text(v)) int = false;
    if (float && !int && !FLOAT.test(v)) float = false;
    if (bool && !BOOL.test(v)) bool = false;
    if (!int && !float && !bool) return 'string';
  }
  if (!any) return 'float';
  return int ? 'int' : float ? 'float' : bool ? 'bool' : 'string';
}

/** Checks a column of text against `type`; `bad(r, msg)` reports an unparsable row. */
function convert(values: string[], type: CsvType, keep: Uint8Array, bad: (r: number, msg: string) => void, name: string): void {
  for (let r = 0; r < values.length; r++) {
    const v = values[r];
    if (v === '' || !keep[r]) continue;
    let ok = true;
    if (type === 'int') ok = isInt64Text(v);
    else if (type === 'float') ok = FLOAT.test(v);
    else if (type === 'bool') ok = BOOL.test(v);
    else if (type === 'timestamp') ok = !Number.isNaN(parseIsoTimestamp(v));
    if (!ok) bad(r, `column '${name}': expected ${type}, found '${v}'`);
  }
}

/** A part parsed to text: every column's values, its type, and which rows are kept (1) or were malformed (0). */
export interface CsvText {
  names: string[];
  columns: string[][];
  types: CsvType[];
  keep: Uint8Array;
  kept: number;
  /** Malformed rows skipped (policy 'skip'). */
  skipped: number;
}

/**
 * A CSV file or byte range of one as text columns with their types, the rows to keep and the
 * count skipped (see csv.ts's module comment); readCsv builds the Arrow table from it.
 */
export function parseCsvPart(part: CsvPart, opts: CsvOptions = {}): CsvText {
  const delimiter = opts.delimiter ?? ',';
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n') throw new Error(`csv: delimiter must be one character other than a quote or newline, got ${JSON.stringify(delimiter)}`);
  const header = opts.header ?? true;
  const policy = opts.onBadLines ?? 'error';
  const file = part.path;
  let fd: number;
  let size: number;
  try {
    // Regular files only, opened without blocking: this runs on main when types are inferred.
    ({ fd, size } = openRegularFile(file));
  } catch (e) {
    throw new Error(`csv: cannot open ${file}: ${(e as Error).message}`);
  }
  try {
    const end = Math.min(part.end ?? size, size);
    if (part.start < 0 || part.start > size || end < part.start) throw new Error(`csv: ${file}: byte range [${part.start}, ${part.end}) is outside the file (${size} bytes)`);
    // The range's first line: at start if that is a line start, else after the next newline.
    const from = lineStartFrom(fd, part.start, size, file);
    const to = end >= size ? size : lineStartFrom(fd, end, size, file);
    let names = opts.names;
    let bodyFrom = from;
    if (header) {
      const headerEnd = afterNewline(fd, 0, size, file);
      const headText = decode(readAt(fd, 0, headerEnd), true);
      const parsed = parseCsvText(headText, delimiter, 0, () => true);
      names = parsed.firstRow ?? [];
      if (names.length === 0) throw new CsvError(file, 1, 'expected a header line naming the columns, found an empty line');
      if (from === 0) bodyFrom = headerEnd;
    }
    const text = bodyFrom < to ? decode(readAt(fd, bodyFrom, to - bodyFrom), bodyFrom === 0) : '';
    let base: number | null = null;
    const absLine = (rel: number): number => {
      if (base === null) base = linesBefore(fd, bodyFrom);
      return base + rel;
    };
    const onBad = (b: BadRow): boolean => {
      if (policy === 'skip') return true;
      throw new CsvError(file, absLine(b.line), `expected ${ncols} fields, found ${b.found}: ${b.text.slice(0, 80)}`);
    };
    let ncols = names ? names.length : 0;
    const parsed = parseCsvText(text, delimiter, ncols, onBad);
    if (!names) {
      ncols = parsed.columns.length;
      names = Array.from({ length: ncols }, (_, j) => `c${j}`);
      // Without a header the first row is data.
      if (parsed.firstRow) parsed.columns.forEach((c, j) => c.unshift((parsed.firstRow as string[])[j]));
      if (parsed.firstRow) parsed.lines.unshift(1);
    }
    const seen = new Set<string>();
    for (const nme of names) {
      if (seen.has(nme)) throw new CsvError(file, 1, `two columns are named '${nme}'`);
      seen.add(nme);
    }
    for (const k of Object.keys(opts.types ?? {})) {
      if (!names.includes(k)) throw new Error(`csv: ${file}: types names column '${k}', which the file does not have (columns: ${names.join(', ')})`);
    }
    const rows = parsed.columns[0]?.length ?? 0;
    const keep = new Uint8Array(rows).fill(1);
    let skipped = parsed.skipped;
    const types = names.map((nme, j) => opts.types?.[nme] ?? inferType(parsed.columns[j]));
    names.forEach((nme, j) => convert(parsed.columns[j], types[j], keep, (r, msg) => {
      if (policy === 'error') throw new CsvError(file, absLine(parsed.lines[r]), msg);
      if (keep[r]) {
        keep[r] = 0;
        skipped++;
      }
    }, nme));
    let kept = 0;
    for (let r = 0; r < rows; r++) kept += keep[r];
    return { names, columns: parsed.columns, types, keep, kept, skipped };
  } finally {
    closeSync(fd);
  }
}

/** Types of every column, inferred from the first `sampleBytes` of the first file (as readCsv types them). */
export function inferCsvTypes(path: string, opts: CsvOptions = {}, sampleBytes = 1 << 20): Record<string, CsvType> {
  const { names, types } = parseCsvPart({ path, start: 0, end: sampleBytes }, { ...opts, onBadLines: 'skip' });
  const out: Record<string, CsvType> = { ...(opts.types ?? {}) };
  names.forEach((name, j) => (out[name] ??= types[j]));
  return out;
}

/**
 * Partitions of the files matching `pattern`: one per file, or with `blocksize` one per
 * `blocksize` bytes of each file (the last range of a file runs to its end).
 */
export function csvPartitions(pattern: string, blocksize?: number): CsvPart[] {
  const files = expandGlob(pattern);
  if (files.length === 0) throw new Error(`csv: no files match ${pattern}`);
  if (blocksize !== undefined && (!Number.isInteger(blocksize) || blocksize < 1)) throw new Error(`csv: blocksize must be a positive integer, got ${blocksize}`);
  const parts: CsvPart[] = [];
  for (const path of files) {
    if (!blocksize) {
      parts.push({ path, start: 0, end: null });
      continue;
    }
    const size = regularFileSize(path);
    if (size === 0) parts.push({ path, start: 0, end: null });
    for (let s = 0; s < size; s += blocksize) parts.push({ path, start: s, end: s + blocksize >= size ? null : s + blocksize });
  }
  return parts;
}
