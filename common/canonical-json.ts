/**
 * Canonical JSON: one byte string per value, whatever the key order or the backend that made it.
 * Pure (no Node or DOM imports) so main, worker and renderer can all use it.
 *
 * - Object keys are sorted (by UTF-16 code unit, as Array.prototype.sort does); `undefined`
 *   members are dropped, as JSON.stringify drops them.
 * - Typed arrays become plain arrays; bigints become decimal strings.
 * - NaN, Infinity and -Infinity, which JSON cannot hold, become the strings "NaN", "Infinity" and
 *   "-Infinity"; -0 becomes 0.
 * - With `digits` set, every number is rounded to that many significant digits first
 *   (`Number(x.toPrecision(digits))`), so results that differ only in float noise print the same.
 *   Integers are rounded too: a sum that is an integer on one backend and 1e-7 off on another
 *   must still agree.
 */
export interface CanonicalOptions {
  /** Round every number to this many significant digits (1..21). Absent: numbers are exact. */
  digits?: number;
}

/** Rounds `x` to `digits` significant digits; non-finite values and zero pass through. */
export function roundSignificant(x: number, digits: number): number {
  if (!Number.isFinite(x) || x === 0) return x === 0 ? 0 : x;
  return Number(x.toPrecision(digits));
}

function numberText(x: number, digits: number | undefined): string {
  if (Number.isNaN(x)) return '"NaN"';
  if (x === Infinity) return '"Infinity"';
  if (x === -Infinity) return '"-Infinity"';
  const v = digits === undefined ? x : roundSignificant(x, digits);
  return JSON.stringify(v === 0 ? 0 : v);
}

function write(value: unknown, digits: number | undefined, out: string[], seen: Set<object>): void {
  if (value === null || value === undefined) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'number':
      out.push(numberText(value, digits));
      return;
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'bigint':
      out.push(JSON.stringify(value.toString()));
      return;
    case 'function':
    case 'symbol':
      throw new TypeError(`canonical JSON: cannot encode a ${typeof value}`);
  }
  const obj = value as object;
  if (seen.has(obj)) throw new TypeError('canonical JSON: value contains a cycle');
  seen.add(obj);
  if (ArrayBuffer.isView(obj) && !(obj instanceof DataView)) {
    write(Array.from(obj as unknown as ArrayLike<number | bigint>), digits, out, seen);
  } else if (Array.isArray(obj)) {
    out.push('[');
    obj.forEach((item, i) => {
      if (i > 0) out.push(',');
      write(item, digits, out, seen);
    });
    out.push(']');
  } else {
    const rec = obj as Record<string, unknown>;
    const keys = Object.keys(rec).filter((k) => rec[k] !== undefined).sort();
    out.push('{');
    keys.forEach((k, i) => {
      if (i > 0) out.push(',');
      out.push(JSON.stringify(k), ':');
      write(rec[k], digits, out, seen);
    });
    out.push('}');
  }
  seen.delete(obj);
}

/** The canonical JSON text of `value` (see the top comment). */
export function canonicalJson(value: unknown, options: CanonicalOptions = {}): string {
  const { digits } = options;
  if (digits !== undefined && !(Number.isInteger(digits) && digits >= 1 && digits <= 21)) {
    throw new RangeError(`canonical JSON: digits must be an integer in 1..21, got ${digits}`);
  }
  const out: string[] = [];
  write(value, digits, out, new Set());
  return out.join('');
}
