/**
 * CSV text -> rows of fields (RFC 4180: quoted fields may hold delimiters, quotes doubled, and
 * newlines), collected column by column. Rows whose field count differs from the header's are
 * malformed: the caller's policy either throws (naming the file and line) or skips and counts
 * them. Blank lines are skipped, as pandas does.
 */

export interface ParsedCsv {
  /** columns[j][r]: the text of field j of kept row r. */
  columns: string[][];
  /** Line (1-based, within the text) where each kept row starts. */
  lines: number[];
  skipped: number;
}

export interface BadRow {
  /** 1-based line within the text. */
  line: number;
  found: number;
  text: string;
}

/**
 * Parses `text` into `ncols` columns (or, when ncols is 0, as many as the first row has).
 * `onBad` decides per malformed row: return true to skip it, or throw.
 */
export function parseCsvText(text: string, delimiter: string, ncols: number, onBad: (b: BadRow) => boolean): ParsedCsv & { firstRow: string[] | null } {
  const d = delimiter.charCodeAt(0);
  const QUOTE = 34;
  const NL = 10;
  const CR = 13;
  let columns: string[][] = Array.from({ length: ncols }, () => []);
  const lines: number[] = [];
  let skipped = 0;
  let firstRow: string[] | null = null;
  let row: string[] = [];
  let line = 1;
  let rowLine = 1;
  let i = 0;
  const n = text.length;
  const endRow = (rawStart: number, rawEnd: number) => {
    if (row.length === 1 && row[0] === '') {
      row = [];
      return; // blank line
    }
    if (ncols === 0) {
      ncols = row.length;
      columns = Array.from({ length: ncols }, () => []);
      firstRow = row;
      row = [];
      return;
    }
    if (row.length !== ncols) {
      if (onBad({ line: rowLine, found: row.length, text: text.slice(rawStart, rawEnd) })) skipped++;
      row = [];
      return;
    }
    for (let j = 0; j < ncols; j++) columns[j].push(row[j]);
    lines.push(rowLine);
    row = [];
  };
  let rowStart = 0;
  while (i <= n) {
    // One field.
    if (i < n && text.charCodeAt(i) === QUOTE) {
      let s = '';
      let j = i + 1;
      let closed = false;
      while (j < n) {
        const q = text.indexOf('"', j);
        if (q < 0) break;
        s += text.slice(j, q);
        if (text.charCodeAt(q + 1) === QUOTE) {
          s += '"';
          j = q + 2;
        } else {
          j = q + 1;
          closed = true;
          break;
        }
      }
      if (!closed) {
        // Unterminated quote: the rest of the text is one malformed row.
        if (onBad({ line: rowLine, found: row.length + 1, text: text.slice(rowStart, Math.min(n, rowStart + 200)) })) skipped++;
        return { columns, lines, skipped, firstRow };
      }
      for (let k = i; k < j; k++) if (text.charCodeAt(k) === NL) line++;
      // Text after the closing quote up to the delimiter is kept, as pandas does.
      let k = j;
      while (k < n && text.charCodeAt(k) !== d && text.charCodeAt(k) !== NL) k++;
      let tail = text.slice(j, k);
      if (tail.endsWith('\r')) tail = tail.slice(0, -1);
      row.push(s + tail);
      i = k;
    } else {
      let k = i;
      while (k < n) {
        const c = text.charCodeAt(k);
        if (c === d || c === NL) break;
        k++;
      }
      let end = k;
      if (end > i && text.charCodeAt(end - 1) === CR && (k === n || text.charCodeAt(k) === NL)) end--;
      row.push(text.slice(i, end));
      i = k;
    }
    if (i >= n) {
      if (!(row.length === 1 && row[0] === '' && i === rowStart)) endRow(rowStart, n);
      break;
    }
    if (text.charCodeAt(i) === d) {
      i++;
      if (i === n) {
        row.push('');
        endRow(rowStart, n);
        break;
      }
      continue;
    }
    // Newline ends the row.
    endRow(rowStart, i);
    i++;
    line++;
    rowLine = line;
    rowStart = i;
    if (i === n) break;
  }
  return { columns, lines, skipped, firstRow };
}
