/**
 * Request bodies checked before JSON.parse, in one pass over the raw bytes and without an
 * allocation per element: bracket depth outside strings, and a budget on values (commas and
 * openers, an upper bound on what JSON.parse would build). The walk after JSON.parse that this
 * replaces built a path string for every element, scalars included: a 16 MB body held the loop
 * for 20–49 s and grew serve by 1.6 GB (issue 29.2).
 *
 * Only the first `maxDepth` levels are tracked (an index or a key's byte range per level, in
 * preallocated typed arrays), so the path named in an error costs nothing until it is needed.
 * The scan does not validate JSON: JSON.parse does that after it.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJ = 0x7b;
const CLOSE_OBJ = 0x7d;
const OPEN_ARR = 0x5b;
const CLOSE_ARR = 0x5d;

export type BodyProblem = { kind: 'deep'; path: string } | { kind: 'elements'; count: number };

/** The key between two byte offsets (quotes excluded), decoded as JSON would, for error text only. */
function keyText(buf: Uint8Array, start: number, end: number): string {
  const raw = Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('utf8');
  try {
    const k: unknown = JSON.parse(`"${raw}"`);
    return typeof k === 'string' ? k : raw;
  } catch {
    return raw;
  }
}

/**
 * The first problem of the JSON text `buf`: a value nested deeper than `maxDepth` (with its path,
 * as `body.a[3].b`), or more than `maxElements` values; null when neither.
 */
export function scanJsonBody(buf: Uint8Array, maxDepth: number, maxElements: number): BodyProblem | null {
  const isObj = new Uint8Array(maxDepth);
  const index = new Int32Array(maxDepth);
  const keyStart = new Int32Array(maxDepth);
  const keyEnd = new Int32Array(maxDepth);
  let depth = 0;
  let elements = 0;
  let inString = false;
  let stringStart = 0;
  // In an object, a string right after '{' or ',' is a key; its range is kept for error paths.
  let expectKey = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        if (expectKey && depth > 0) {
          keyStart[depth - 1] = stringStart;
          keyEnd[depth - 1] = i;
          expectKey = false;
        }
      }
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      stringStart = i + 1;
    } else if (c === OPEN_OBJ || c === OPEN_ARR) {
      if (depth >= maxDepth) return { kind: 'deep', path: pathOf(buf, depth, isObj, index, keyStart, keyEnd) };
      if (++elements > maxElements) return { kind: 'elements', count: elements };
      isObj[depth] = c === OPEN_OBJ ? 1 : 0;
      index[depth] = 0;
      keyStart[depth] = keyEnd[depth] = 0;
      depth++;
      expectKey = c === OPEN_OBJ;
    } else if (c === CLOSE_OBJ || c === CLOSE_ARR) {
      if (depth > 0) depth--;
      expectKey = false;
    } else if (c === COMMA) {
      if (++elements > maxElements) return { kind: 'elements', count: elements };
      if (depth > 0) {
        index[depth - 1]++;
        expectKey = isObj[depth - 1] === 1;
      }
    } else if (c === COLON) expectKey = false;
  }
  return null;
}

/** `body` followed by each open level's key or index, outermost first. */
function pathOf(buf: Uint8Array, depth: number, isObj: Uint8Array, index: Int32Array, keyStart: Int32Array, keyEnd: Int32Array): string {
  let path = 'body';
  for (let d = 0; d < depth; d++) path += isObj[d] ? `.${keyText(buf, keyStart[d], keyEnd[d])}` : `[${index[d]}]`;
  return path;
}
