/**
 * The addon's stream fill (native/src/philox_fill.h) against common/philox.ts's PhiloxStream, bit
 * for bit, and its log / sin / cos (native/src/js_math.h) against V8's Math.log / sin / cos, the
 * oracle it ports. Needs the addon (native/build); GPUFLOW_NO_NATIVE=1 skips.
 */
import { describe, expect, it } from 'vitest';
import { PhiloxStream } from '../../../common/philox';
import type { NativeAddon } from '../../../native/addon-types';
import { loadNative } from '../../../native/index';
import { fillStream, fillStreamJs } from '../../../native/philox-fill';

const skip = process.env.GPUFLOW_NO_NATIVE === '1';

function addon(): Required<Pick<NativeAddon, 'philoxFill' | 'jsMath'>> {
  const n = loadNative();
  if ('unavailable' in n) throw new Error(`addon unavailable: ${n.unavailable}`);
  const { philoxFill, jsMath } = n.addon;
  if (!philoxFill || !jsMath) throw new Error('this addon build has no philoxFill / jsMath; run node native/build.mjs');
  return { philoxFill, jsMath };
}

/** Indices where two arrays differ (Object.is: NaN equals NaN, 0 and -0 differ). */
function differing(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) out.push(i);
  return out;
}

/** x moved by k ulps (k may be negative). */
function ulps(x: number, k: number): number {
  const f = new Float64Array([x]);
  const u = new BigInt64Array(f.buffer);
  u[0] += BigInt(x >= 0 ? k : -k);
  return f[0];
}

/** The block the fill writes, made from PhiloxStream.at one element at a time. */
function reference(seed: number, dist: 'normal' | 'uniform', a: number, b: number, start: number, rows: number, cols: number, stride: number, outStride: number, out: Float64Array | Float32Array): void {
  const s = new PhiloxStream(seed, dist, a, b, false);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[r * outStride + c] = s.at(start + r * stride + c);
}

describe.skipIf(skip)('jsMath: log, sin and cos as V8 computes them', () => {
  it('matches Math.log / Math.sin / Math.cos bit for bit on edges of every fdlibm branch and on random arguments', () => {
    const xs: number[] = [0, -0, 1, -1, 5e-324, 2 ** -1022, 2 ** -1074 * 3, 1e-300, 2 ** -53, 2 ** -30, 2 ** -28, 1e-9, 0.3, 0.29999999999999993, 0.78125, 0.7853981633974483, Math.SQRT2, Math.SQRT1_2, 2, 10, 1e300, Infinity, -Infinity, NaN];
    // Near n pi/2 (the reduction's quadrants, the cancellation check against npio2_hw, the near-pi/2 special case) and its edges.
    for (let n = -40; n <= 40; n++) for (let k = -3; k <= 3; k++) xs.push(ulps((n * Math.PI) / 2, k));
    for (const e of [Math.PI / 4, (3 * Math.PI) / 4, 2 ** 19 * (Math.PI / 2), 1 + 2 ** -20, 1 - 2 ** -20, 1 + 2 ** -21]) for (let k = -2; k <= 2; k++) xs.push(ulps(e, k), -ulps(e, k));
    // The normal stream's arguments: uniforms in (0, 1] and angles in (0, 2 pi], and wider.
    const s = new PhiloxStream(99, 'uniform', 0, 1, false);
    for (let i = 0; i < 20000; i++) xs.push(s.at(i), 2 * Math.PI * s.at(i + 20000), (s.at(i + 40000) - 0.5) * 2 ** 20);
    const x = new Float64Array(xs);
    const [lg, sn, cs] = [new Float64Array(x.length), new Float64Array(x.length), new Float64Array(x.length)];
    addon().jsMath(x, lg, sn, cs);
    expect(differing(lg, x.map(Math.log))).toEqual([]);
    expect(differing(sn, x.map(Math.sin))).toEqual([]);
    expect(differing(cs, x.map(Math.cos))).toEqual([]);
  });
});

describe.skipIf(skip)('philoxFill: a strided block of the float64 stream, bit-identical to PhiloxStream', () => {
  const cases = [
    { seed: 0, dist: 'normal' as const, a: 0, b: 1, start: 0, rows: 1, cols: 1001, stride: 0 },
    { seed: 12345, dist: 'normal' as const, a: 1.5, b: 0.25, start: 7, rows: 33, cols: 17, stride: 40 },
    { seed: 2 ** 40 + 3, dist: 'normal' as const, a: -3, b: 2, start: 2 ** 33 + 1, rows: 5, cols: 64, stride: 784 },
    { seed: 2 ** 53 - 1, dist: 'uniform' as const, a: -2, b: 3, start: 1, rows: 9, cols: 31, stride: 31 },
    { seed: 77, dist: 'normal' as const, a: 0, b: 1, start: 64, rows: 200, cols: 720, stride: 784 },
  ];
  for (const c of cases) {
    for (const type of ['float64', 'float32'] as const) {
      it(`${c.dist}(${c.a}, ${c.b}) seed ${c.seed}, ${c.rows} x ${c.cols} from ${c.start} stride ${c.stride}, into ${type}`, () => {
        const outStride = c.cols + 3; // a gap after each row that the fill must leave alone
        const len = (c.rows - 1) * outStride + c.cols + 2;
        const make = () => (type === 'float64' ? new Float64Array(len) : new Float32Array(len)).fill(-7);
        const want = make();
        reference(c.seed, c.dist, c.a, c.b, c.start, c.rows, c.cols, c.stride, outStride, want);
        for (const threads of [1, 3]) {
          const got = make();
          addon().philoxFill(c.seed, c.dist === 'normal', c.a, c.b, c.start, c.rows, c.cols, c.stride, got, outStride, threads);
          expect(differing(got, want)).toEqual([]);
        }
      });
    }
  }

  it('2 M normals, a long row split over threads: no float64 value differs from PhiloxStream.read', () => {
    const n = 2 ** 21 + 1;
    const want = new Float64Array(n);
    new PhiloxStream(4242, 'normal', 0, 1, false).read(3, want);
    const got = new Float64Array(n);
    addon().philoxFill(4242, true, 0, 1, 3, 1, n, n, got, n, 2);
    expect(differing(got, want).length).toBe(0);
  });

  it('fillStream (addon) and fillStreamJs (the fallback) write the same bytes at an offset', () => {
    const spec = { seed: 31, dist: 'normal' as const, a: 0, b: 1 };
    const block = { start: 5, rows: 40, cols: 50, stride: 60 };
    const a = new Float32Array(10 + 39 * 55 + 50);
    const b = new Float32Array(a.length);
    expect(fillStream(spec, block, a, 10, 55)).toBe('native');
    fillStreamJs(spec, block, b.subarray(10), 55);
    expect(differing(a, b)).toEqual([]);
    expect(a[10]).not.toBe(0);
  });

  it('rejects a bad block with an error naming what is wrong', () => {
    const { philoxFill } = addon();
    const out = new Float64Array(10);
    expect(() => philoxFill(1, true, 0, 1, 0, 2, 6, 6, out, 6, 1)).toThrow(/out holds 10 elements; 2 rows of 6 at outStride 6 need 12/);
    expect(() => philoxFill(1, true, 0, 1, 0, 2, 4, 4, out, 3, 1)).toThrow(/outStride \(3\) must be >= cols \(4\)/);
    expect(() => philoxFill(-1, true, 0, 1, 0, 1, 4, 4, out, 4, 1)).toThrow(RangeError);
    expect(() => philoxFill(1, true, 0, 1, 2 ** 53 - 2, 1, 4, 4, out, 4, 1)).toThrow(/past the stream's 2\^53 - 1/);
    expect(() => philoxFill(1, true, 0, 1, 0, 1, 4, 4, new Int32Array(4) as unknown as Float64Array, 4, 1)).toThrow(/out must be a Float64Array or Float32Array/);
  });
});
