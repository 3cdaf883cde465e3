import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { canonicalJson, roundSignificant } from '../../../common/canonical-json';
import { contentHash, DIGEST_SIGNIFICANT_DIGITS, resultDigest } from '../../../common/digest';

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[1,{"y":2,"z":1}]},"b":1}');
  });

  it('encodes what JSON cannot hold as fixed strings', () => {
    expect(canonicalJson([NaN, Infinity, -Infinity, -0, 10n])).toBe('["NaN","Infinity","-Infinity",0,"10"]');
  });

  it('turns typed arrays into plain arrays', () => {
    expect(canonicalJson({ x: new Float64Array([1.5, 2]) })).toBe('{"x":[1.5,2]}');
  });

  it('rounds to significant digits when asked', () => {
    expect(canonicalJson({ x: 0.1 + 0.2 }, { digits: 10 })).toBe('{"x":0.3}');
    expect(canonicalJson({ x: 0.1 + 0.2 })).toBe('{"x":0.30000000000000004}');
    expect(roundSignificant(123456.789, 4)).toBe(123500);
    expect(roundSignificant(-0.000123456789, 3)).toBe(-0.000123);
  });

  it('rejects cycles and bad digit counts', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(() => canonicalJson(a)).toThrow(/cycle/);
    expect(() => canonicalJson(1, { digits: 0 })).toThrow(/digits/);
  });
});

describe('resultDigest', () => {
  it('is documented as 10 significant digits', () => {
    expect(DIGEST_SIGNIFICANT_DIGITS).toBe(10);
  });

  it('is sha256 of the rounded canonical JSON (independent computation)', () => {
    const expected = createHash('sha256').update('{"mean":0.3333333333,"n":3}').digest('hex');
    expect(resultDigest({ n: 3, mean: 1 / 3 })).toBe(expected);
  });

  it('ignores a difference in the 14th significant digit', () => {
    const a = { sum: 1.2345678901234, parts: [2.718281828459045, 1e-20 * 3.141592653589793] };
    const b = { parts: [2.718281828459012, 1e-20 * 3.141592653589711], sum: 1.2345678901299 };
    expect(resultDigest(a)).toBe(resultDigest(b));
  });

  it('sees a difference in the 6th significant digit', () => {
    expect(resultDigest({ sum: 1.2345678901 })).not.toBe(resultDigest({ sum: 1.2345778901 }));
  });

  it('does not depend on key order', () => {
    expect(resultDigest({ a: 1, b: [1, 2] })).toBe(resultDigest({ b: [1, 2], a: 1 }));
  });
});

describe('contentHash', () => {
  it('is exact: a 14th-digit difference changes it', () => {
    expect(contentHash({ x: 1.2345678901234 })).not.toBe(contentHash({ x: 1.2345678901299 }));
    expect(contentHash({ x: 1, y: 2 })).toBe(contentHash({ y: 2, x: 1 }));
  });
});
