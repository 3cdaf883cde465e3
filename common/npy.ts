/**
 * NumPy `.npy` files (format versions 1.0, 2.0 and 3.0) to and from `NDArray`.
 *
 * Layout: the magic `\x93NUMPY`, a major and a minor version byte, the header length (uint16 LE in
 * v1, uint32 LE in v2/v3), then a header that is a Python dict literal such as
 * `{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }` padded with spaces and a newline,
 * then the raw data. The header is parsed by a small tokenizer, never evaluated.
 *
 * Supported: little-endian `<f8 <f4 <i4 <i8`. Fortran-ordered files are transposed into C order
 * on read (the result is always row-major). Big-endian and every other dtype are refused with a
 * message naming the dtype. Writing always produces C order, version 1.0 (2.0 when the header
 * does not fit in 65535 bytes), with the data start aligned to 64 bytes as NumPy does.
 * Typed arrays are read and written in the host's byte order, which is little-endian on every
 * platform gpuflow runs on (x86-64, arm64).
 */
import { sizeOf, type DType, type NDArray, type NumericArray } from './arrays';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
const ALIGN = 64;

// NumPy writes bool as '|b1' (one byte, no byte order).
const DESCR_TO_DTYPE: Record<string, DType> = { '<f8': 'float64', '<f4': 'float32', '<i4': 'int32', '<i8': 'int64', '|b1': 'bool' };
const DTYPE_TO_DESCR: Record<DType, string> = { float64: '<f8', float32: '<f4', int32: '<i4', int64: '<i8', bool: '|b1' };
const ITEMSIZE: Record<DType, number> = { float64: 8, float32: 4, int32: 4, int64: 8, bool: 1 };

export class NpyError extends Error {
  override name = 'NpyError';
}

type PyValue = string | boolean | number | PyValue[] | { [key: string]: PyValue };

/** Parses the small subset of Python literals a .npy header uses: dict, tuple, str, int, bool. */
class HeaderParser {
  private pos = 0;
  constructor(private readonly text: string) {}

  parse(): PyValue {
    const v = this.value();
    this.skipSpace();
    if (this.pos !== this.text.length) this.fail('unexpected text after the header dict');
    return v;
  }

  private fail(what: string): never {
    throw new NpyError(`npy header: ${what} at offset ${this.pos} in ${JSON.stringify(this.text)}`);
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }

  private value(): PyValue {
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === '{') return this.dict();
    if (c === '(' || c === '[') return this.sequence(c === '(' ? ')' : ']');
    if (c === "'" || c === '"') return this.string();
    if (c !== undefined && /[0-9-]/.test(c)) return this.integer();
    for (const [word, val] of [['True', true], ['False', false]] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return val;
      }
    }
    return this.fail('expected a dict, tuple, string, integer or boolean');
  }

  private dict(): { [key: string]: PyValue } {
    const out: { [key: string]: PyValue } = {};
    this.pos++; // {
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] === '}') {
        this.pos++;
        return out;
      }
      const key = this.value();
      if (typeof key !== 'string') this.fail('dict keys must be strings');
      this.skipSpace();
      if (this.text[this.pos] !== ':') this.fail("expected ':'");
      this.pos++;
      out[key] = this.value();
      this.skipSpace();
      if (this.text[this.pos] === ',') this.pos++;
      else if (this.text[this.pos] !== '}') this.fail("expected ',' or '}'");
    }
  }

  private sequence(close: string): PyValue[] {
    const out: PyValue[] = [];
    this.pos++;
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] === close) {
        this.pos++;
        return out;
      }
      out.push(this.value());
      this.skipSpace();
      if (this.text[this.pos] === ',') this.pos++;
      else if (this.text[this.pos] !== close) this.fail(`expected ',' or '${close}'`);
    }
  }

  private string(): string {
    const quote = this.text[this.pos++];
    const start = this.pos;
    while (this.pos < this.text.length && this.text[this.pos] !== quote) {
      if (this.text[this.pos] === '\\') this.fail('escapes in strings are not supported');
      this.pos++;
    }
    if (this.pos >= this.text.length) this.fail('unterminated string');
    return this.text.slice(start, this.pos++);
  }

  private integer(): number {
    const m = /^-?[0-9]+L?/.exec(this.text.slice(this.pos));
    if (!m) this.fail('bad integer');
    this.pos += m[0].length;
    return Number(m[0].replace('L', ''));
  }
}

function describeDescr(descr: PyValue): string {
  return typeof descr === 'string' ? descr : JSON.stringify(descr);
}

function dtypeOf(descr: PyValue): DType {
  if (typeof descr === 'string' && descr in DESCR_TO_DTYPE) return DESCR_TO_DTYPE[descr];
  const name = describeDescr(descr);
  if (typeof descr === 'string' && descr.startsWith('>')) {
    throw new NpyError(`npy: big-endian dtype '${name}' is not supported; save it little-endian (arr.astype(arr.dtype.newbyteorder('<')))`);
  }
  throw new NpyError(`npy: dtype '${name}' is not supported; supported: ${Object.keys(DESCR_TO_DTYPE).join(' ')}`);
}

/**
 * Permutes Fortran-ordered (column-major) elements into C (row-major) order. Works on 32-bit
 * words (an element is 1 or 2 of them), so one loop serves every dtype.
 */
function fortranToC<T extends Uint32Array | Uint8Array>(src: T, dst: T, shape: number[], words: number): void {
  const nd = shape.length;
  const n = sizeOf(shape);
  // Walk C-order indices with an odometer, tracking the Fortran offset incrementally.
  const fStride = new Array<number>(nd);
  let s = 1;
  for (let d = 0; d < nd; d++) {
    fStride[d] = s;
    s *= shape[d];
  }
  const idx = new Array<number>(nd).fill(0);
  let f = 0;
  for (let c = 0; c < n; c++) {
    for (let w = 0; w < words; w++) dst[c * words + w] = src[f * words + w];
    for (let d = nd - 1; d >= 0; d--) {
      idx[d]++;
      f += fStride[d];
      if (idx[d] < shape[d]) break;
      f -= idx[d] * fStride[d];
      idx[d] = 0;
    }
  }
}

/** Reads a .npy file. The result owns a fresh, aligned copy of the data, always in C order. */
export function readNpy(buf: Uint8Array): NDArray {
  if (buf.length < 10 || MAGIC.some((b, i) => buf[i] !== b)) throw new NpyError('npy: not a .npy file (missing the \\x93NUMPY magic)');
  const major = buf[6];
  const minor = buf[7];
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let headerLen: number;
  let headerStart: number;
  if (major === 1) {
    headerLen = view.getUint16(8, true);
    headerStart = 10;
  } else if (major === 2 || major === 3) {
    if (buf.length < 12) throw new NpyError('npy: file truncated inside the header length');
    headerLen = view.getUint32(8, true);
    headerStart = 12;
  } else {
    throw new NpyError(`npy: format version ${major}.${minor} is not supported (1.0, 2.0 and 3.0 are)`);
  }
  const dataStart = headerStart + headerLen;
  if (dataStart > buf.length) throw new NpyError(`npy: file truncated: header says ${headerLen} bytes, file has ${buf.length - headerStart}`);
  const headerBytes = buf.subarray(headerStart, dataStart);
  const text = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(headerBytes);

  const header = new HeaderParser(text.trim()).parse();
  if (typeof header !== 'object' || Array.isArray(header)) throw new NpyError('npy header: expected a dict');
  for (const key of ['descr', 'fortran_order', 'shape']) {
    if (!(key in header)) throw new NpyError(`npy header: missing key '${key}'`);
  }
  const dtype = dtypeOf(header.descr);
  const fortran = header.fortran_order;
  if (typeof fortran !== 'boolean') throw new NpyError('npy header: fortran_order must be True or False');
  const shapeValue = header.shape;
  if (!Array.isArray(shapeValue) || shapeValue.some((d) => typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0)) {
    throw new NpyError(`npy header: shape must be a tuple of non-negative integers, got ${JSON.stringify(shapeValue)}`);
  }
  const shape = shapeValue as number[];

  const count = sizeOf(shape);
  const nbytes = count * ITEMSIZE[dtype];
  const available = buf.length - dataStart;
  if (available !== nbytes) {
    throw new NpyError(`npy: shape (${shape.join(', ')}) of ${dtype} needs ${nbytes} data bytes, file has ${available}`);
  }
  // Copy so the typed array is aligned and does not alias the caller's buffer.
  const raw = buf.slice(dataStart, dataStart + nbytes).buffer;
  if (!fortran || shape.length < 2) return { dtype, shape, data: typedView(dtype, raw) };
  const dst = new ArrayBuffer(nbytes);
  // Moved in 4-byte words, or bytes for bool's one-byte elements.
  if (ITEMSIZE[dtype] === 1) fortranToC(new Uint8Array(raw), new Uint8Array(dst), shape, 1);
  else fortranToC(new Uint32Array(raw), new Uint32Array(dst), shape, ITEMSIZE[dtype] / 4);
  return { dtype, shape, data: typedView(dtype, dst) };
}

function typedView(dtype: DType, raw: ArrayBuffer): NumericArray {
  switch (dtype) {
    case 'float64': return new Float64Array(raw);
    case 'float32': return new Float32Array(raw);
    case 'int32': return new Int32Array(raw);
    case 'int64': return new BigInt64Array(raw);
    case 'bool': return new Uint8Array(raw);
  }
}

function dataMatches(dtype: DType, data: NumericArray): boolean {
  switch (dtype) {
    case 'float64': return data instanceof Float64Array;
    case 'float32': return data instanceof Float32Array;
    case 'int32': return data instanceof Int32Array;
    case 'int64': return data instanceof BigInt64Array;
    case 'bool': return data instanceof Uint8Array;
  }
}

/** Writes `a` as a C-ordered .npy file (version 1.0, or 2.0 for very long headers). */
export function writeNpy(a: NDArray): Uint8Array {
  if (!(a.dtype in DTYPE_TO_DESCR)) throw new NpyError(`npy: dtype '${String(a.dtype)}' cannot be written`);
  if (!dataMatches(a.dtype, a.data)) {
    throw new NpyError(`npy: dtype ${a.dtype} does not match its data (a ${a.data.constructor.name})`);
  }
  if (a.shape.some((d) => !Number.isSafeInteger(d) || d < 0)) throw new NpyError(`npy: bad shape [${a.shape.join(', ')}]`);
  if (sizeOf(a.shape) !== a.data.length) {
    throw new NpyError(`npy: shape [${a.shape.join(', ')}] has ${sizeOf(a.shape)} elements, data has ${a.data.length}`);
  }
  const shapeText = a.shape.length === 1 ? `(${a.shape[0]},)` : `(${a.shape.join(', ')})`;
  const dict = `{'descr': '${DTYPE_TO_DESCR[a.dtype]}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  let major = 1;
  let prefix = 10;
  let total = Math.ceil((prefix + dict.length + 1) / ALIGN) * ALIGN;
  if (total - prefix > 0xffff) {
    major = 2;
    prefix = 12;
    total = Math.ceil((prefix + dict.length + 1) / ALIGN) * ALIGN;
  }
  const headerLen = total - prefix;
  const header = dict + ' '.repeat(headerLen - dict.length - 1) + '\n';
  const dataBytes = new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  const out = new Uint8Array(total + dataBytes.length);
  out.set(MAGIC, 0);
  out[6] = major;
  out[7] = 0;
  const view = new DataView(out.buffer);
  if (major === 1) view.setUint16(8, headerLen, true);
  else view.setUint32(8, headerLen, true);
  for (let i = 0; i < header.length; i++) out[prefix + i] = header.charCodeAt(i);
  out.set(dataBytes, total);
  return out;
}
