/**
 * The device makes uniforms from bits instead of an integer -> float conversion (native/src/philox.h,
 * under __CUDA_ARCH__): a mantissa filled with the word's top bits, minus a constant just below 1.
 * This replays that arithmetic here, rounding as the device does, and checks it against the js
 * mapping (the oracle): every float32 input that matters, and float64 at the edges and at random.
 */
import { describe, expect, it } from 'vitest';
import { uniform32, uniform64 } from '../../../common/philox';

const buf = new DataView(new ArrayBuffer(8));

function bits32(w: number): number {
  buf.setUint32(0, (0x3f800000 | (w >>> 9)) >>> 0);
  const f = buf.getFloat32(0);
  // __fsub_rn of two floats: the exact difference rounded to float once.
  return Math.fround(f - ((w & 0x100) !== 0 ? 0.99999988079071044921875 : 0.999999940395355224609375));
}

function bits64(a: number, b: number): number {
  buf.setUint32(0, (0x3ff00000 | (a >>> 12)) >>> 0);
  buf.setUint32(4, (((a >>> 5) << 25) | (b >>> 7)) >>> 0);
  return buf.getFloat64(0) - ((b & 0x40) !== 0 ? 0.99999999999999977795539507496869 : 0.99999999999999988897769753748434);
}

describe('uniforms from bits (the device mapping)', () => {
  it('float32: equal to the js mapping for every one of the 2^24 values a word can give', () => {
    let bad = 0;
    let first = -1;
    // Only the top 24 bits reach the value; the low byte is kept at a non-zero pattern to show
    // it is ignored.
    for (let m = 0; m < 1 << 24; m++) {
      const w = ((m << 8) | 0xa5) >>> 0;
      if (bits32(w) !== uniform32(w)) {
        bad++;
        if (first < 0) first = w;
      }
    }
    expect({ bad, first }).toEqual({ bad: 0, first: -1 });
    expect(bits32(0)).toBe(2 ** -24);
    expect(bits32(0xffffffff)).toBe(1);
  });

  it('float64: equal to the js mapping at the edges and for a million random word pairs', () => {
    const edges = [0, 1, 0x3f, 0x40, 0x7f, 0x80, 0xfff, 0x1000, 0x7fffffff, 0x80000000, 0xffffffbf, 0xffffffff];
    for (const a of edges) for (const b of edges) expect(bits64(a, b)).toBe(uniform64(a, b));
    expect(bits64(0, 0)).toBe(2 ** -53);
    expect(bits64(0xffffffff, 0xffffffff)).toBe(1);
    // xorshift32: a fixed stream of words, independent of the generator under test.
    let s = 0x9e3779b9;
    const next = () => {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      return s >>> 0;
    };
    let bad = 0;
    for (let i = 0; i < 1_000_000; i++) {
      const a = next();
      const b = next();
      if (bits64(a, b) !== uniform64(a, b)) bad++;
    }
    expect(bad).toBe(0);
  });
});
