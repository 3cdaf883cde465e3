/**
 * The header of a .npy file alone, so a node can learn shape and dtype from the first bytes
 * and each block task can read just its rows (common/npy.ts reads whole files). The header dict
 * is tokenised (strings, integers, True/False, tuples), never evaluated; the accepted dtypes and
 * the layout rules are those of common/npy.ts.
 */
import { NpyError } from './npy';
import type { DType } from './arrays';

export interface NpyHeader {
  dtype: DType;
  shape: number[];
  fortranOrder: boolean;
  /** Byte offset of the first data byte. */
  dataStart: number;
}

const DESCR: Record<string, DType> = { '<f8': 'float64', '<f4': 'float32', '<i4': 'int32', '<i8': 'int64', '|b1': 'bool' };
const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];

/** Enough bytes for any header a v1 file can have; v2/v3 say how many more to read. */
export const NPY_PREFIX_BYTES = 65_536 + 10;

/**
 * Longest header accepted, as numpy's own reader (`_MAX_HEADER_SIZE`): a header is a short dict,
 * and a length field claiming 600 MB used to be read and decoded whole, aborting Node.
 */
export const NPY_MAX_HEADER_BYTES = 10_000;

function boundedHeaderLength(len: number): number {
  if (len > NPY_MAX_HEADER_BYTES) throw new NpyError(`npy: the header claims ${len} bytes, over ${NPY_MAX_HEADER_BYTES} (numpy's limit on a .npy header)`);
  return len;
}

/** Bytes needed before the header can be parsed (from the 12-byte preamble), or an error. */
export function npyHeaderEnd(pre: Uint8Array): number {
  if (pre.length < 10 || MAGIC.some((b, i) => pre[i] !== b)) throw new NpyError('npy: not a .npy file (missing the \\x93NUMPY magic)');
  const view = new DataView(pre.buffer, pre.byteOffset, pre.byteLength);
  if (pre[6] === 1) return 10 + boundedHeaderLength(view.getUint16(8, true));
  if (pre[6] === 2 || pre[6] === 3) {
    if (pre.length < 12) throw new NpyError('npy: file truncated inside the header length');
    return 12 + boundedHeaderLength(view.getUint32(8, true));
  }
  throw new NpyError(`npy: format version ${pre[6]}.${pre[7]} is not supported (1.0, 2.0 and 3.0 are)`);
}

type Tok = { t: 'str'; v: string } | { t: 'int'; v: number } | { t: 'bool'; v: boolean } | { t: 'p'; v: string };

function tokens(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) i++;
    else if ('{}()[],:'.includes(c)) out.push({ t: 'p', v: text[i++] });
    else if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) throw new NpyError(`npy header: unterminated string at offset ${i}`);
      out.push({ t: 'str', v: text.slice(i + 1, end) });
      i = end + 1;
    } else if (text.startsWith('True', i) || text.startsWith('False', i)) {
      const v = text.startsWith('True', i);
      out.push({ t: 'bool', v });
      i += v ? 4 : 5;
    } else {
      const m = /^-?[0-9]+L?/.exec(text.slice(i));
      if (!m) throw new NpyError(`npy header: unexpected ${JSON.stringify(c)} at offset ${i}`);
      out.push({ t: 'int', v: Number(m[0].replace('L', '')) });
      i += m[0].length;
    }
  }
  return out;
}

/** The value after `'key':` in the header dict: a string, a bool, or a tuple of integers. */
function field(toks: Tok[], key: string): string | boolean | number[] {
  const at = toks.findIndex((t, k) => t.t === 'str' && t.v === key && toks[k + 1]?.t === 'p' && toks[k + 1].v === ':');
  if (at < 0) throw new NpyError(`npy header: missing key '${key}'`);
  const first = toks[at + 2];
  if (!first) throw new NpyError(`npy header: no value for '${key}'`);
  if (first.t === 'str' || first.t === 'bool') return first.v;
  if (first.t === 'p' && (first.v === '(' || first.v === '[')) {
    const close = first.v === '(' ? ')' : ']';
    const dims: number[] = [];
    for (let k = at + 3; k < toks.length; k++) {
      const t = toks[k];
      if (t.t === 'p' && t.v === close) return dims;
      if (t.t === 'int') dims.push(t.v);
      else if (!(t.t === 'p' && t.v === ',')) throw new NpyError(`npy header: '${key}' must be a tuple of integers`);
    }
    throw new NpyError(`npy header: unterminated tuple for '${key}'`);
  }
  throw new NpyError(`npy header: unsupported value for '${key}'`);
}

/** Parses the preamble and header dict of `buf`, which holds at least the first `npyHeaderEnd` bytes. */
export function parseNpyHeader(buf: Uint8Array): NpyHeader {
  const end = npyHeaderEnd(buf);
  if (buf.length < end) throw new NpyError(`npy: file truncated inside the header (needs ${end} bytes, has ${buf.length})`);
  const start = buf[6] === 1 ? 10 : 12;
  const text = new TextDecoder(buf[6] === 3 ? 'utf-8' : 'latin1').decode(buf.subarray(start, end));
  const toks = tokens(text);
  const descr = field(toks, 'descr');
  if (typeof descr !== 'string' || !(descr in DESCR)) {
    throw new NpyError(`npy: dtype '${String(descr)}' is not supported; supported: ${Object.keys(DESCR).join(' ')}`);
  }
  const fortranOrder = field(toks, 'fortran_order');
  if (typeof fortranOrder !== 'boolean') throw new NpyError('npy header: fortran_order must be True or False');
  const shape = field(toks, 'shape');
  if (!Array.isArray(shape) || shape.some((d) => !Number.isSafeInteger(d) || d < 0)) {
    throw new NpyError(`npy header: shape must be a tuple of non-negative integers, got ${JSON.stringify(shape)}`);
  }
  return { dtype: DESCR[descr], shape, fortranOrder, dataStart: end };
}
