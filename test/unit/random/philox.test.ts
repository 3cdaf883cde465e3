import { describe, expect, it } from 'vitest';
import { philox4x32, PhiloxStream, uniform64 } from '../../../common/philox';

// Known-answer vectors of Philox4x32-10 from the Random123 distribution (kat_vectors).
const KAT: Array<[number[], number[], number[]]> = [
  [[0, 0, 0, 0], [0, 0], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]],
  [[0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff], [0xffffffff, 0xffffffff], [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]],
  [[0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0], [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]],
];

describe('philox4x32-10', () => {
  it('matches the Random123 known-answer vectors', () => {
    const out = new Uint32Array(4);
    for (const [c, k, want] of KAT) {
      philox4x32(c[0], c[1], c[2], c[3], k[0], k[1], out);
      expect(Array.from(out)).toEqual(want);
    }
  });

  it('maps words to float64 uniforms in (0, 1] exactly', () => {
    expect(uniform64(0, 0)).toBe(2 ** -53);
    expect(uniform64(0xffffffff, 0xffffffff)).toBe(1);
    // k = 1 * 2^26 + 1 -> (k + 1) * 2^-53
    expect(uniform64(1 << 5, 1 << 6)).toBe((2 ** 26 + 2) * 2 ** -53);
  });

  it('draws standard normals with the right moments', () => {
    const s = new PhiloxStream(42, 'normal', 0, 1, false);
    let sum = 0;
    let sq = 0;
    const n = 200_000;
    for (let i = 0; i < n; i++) {
      const v = s.at(i);
      sum += v;
      sq += v * v;
    }
    // mean ~ N(0, 1/n): 5 sigma = 0.011; variance within ~5 sigma (sqrt(2/n) = 0.0032)
    expect(Math.abs(sum / n)).toBeLessThan(0.011);
    expect(Math.abs(sq / n - 1)).toBeLessThan(0.016);
  });

  it('gives the same value for an index regardless of access order', () => {
    const idx = [0, 1, 2, 3, 1000, 1001, 123457];
    const a = new PhiloxStream(7, 'uniform', -2, 3, false);
    const b = new PhiloxStream(7, 'uniform', -2, 3, false);
    const forward = idx.map((i) => a.at(i));
    const backward = [...idx].reverse().map((i) => b.at(i)).reverse();
    expect(backward).toEqual(forward);
    for (const v of forward) expect(v > -2 && v <= 3).toBe(true);
  });

  it('read(start, out) gives what at() gives, from any start and length, across block edges', () => {
    for (const [dist, f32] of [['normal', false], ['uniform', false], ['normal', true], ['uniform', true]] as const) {
      const ref = new PhiloxStream(11, dist, 0.5, 2, f32);
      const s = new PhiloxStream(11, dist, 0.5, 2, f32);
      // Starts inside and at block edges (2 or 4 values a block), lengths from 0 to a few blocks.
      for (const [start, n] of [[0, 9], [1, 1], [3, 0], [5, 2], [6, 11], [1001, 7], [123455, 3]]) {
        const out = new Float64Array(n);
        s.read(start, out);
        expect(Array.from(out), `${dist} float32=${f32} start ${start}`).toEqual(Array.from({ length: n }, (_, k) => ref.at(start + k)));
      }
    }
  });
});
