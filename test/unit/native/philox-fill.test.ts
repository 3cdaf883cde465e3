/**
 * The addon's stream fill (native/src/philox_fill.h) against common/philox.ts's PhiloxStream, bit
 * for bit, and its log / sin / cos (native/src/js_math.h) against V8's Math.log / sin / cos, the
 * oracle it ports, at every SIMD level the CPU has. Needs the addon (native/build); GPUFLOW_NO_NATIVE=1 skips.
 */
import { describe, expect, it } from 'vitest';
import { philox4x32, PhiloxStream, uniform64 } from '../../../common/philox';
import type { NativeAddon } from '../../../native/addon-types';
import { loadNative } from '../../../native/index';
import { fillStream, fillStreamAsync, fillStreamJs } from '../../../native/philox-fill';

const skip = process.env.GPUFLOW_NO_NATIVE === '1';

function addon(): Required<Pick<NativeAddon, 'philoxFill' | 'philoxFillAsync' | 'jsMath' | 'jsBoxMuller'>> {
  const n = loadNative();
  if ('unavailable' in n) throw new Error(`addon unavailable: ${n.unavailable}`);
  const { philoxFill, philoxFillAsync, jsMath, jsBoxMuller } = n.addon;
  if (!philoxFill || !philoxFillAsync || !jsMath || !jsBoxMuller) throw new Error('this addon build has no philoxFill / philoxFillAsync / jsMath / jsBoxMuller; run node native/build.mjs');
  return { philoxFill, philoxFillAsync, jsMath, jsBoxMuller };
}

/** Runs fn with GPUFLOW_CPU_SIMD set to simd (the addon reads it on every call). */
function atSimd(simd: string, fn: () => void): void {
  const saved = process.env.GPUFLOW_CPU_SIMD;
  process.env.GPUFLOW_CPU_SIMD = simd;
  try {
    fn();
  } finally {
    if (saved === undefined) delete process.env.GPUFLOW_CPU_SIMD;
    else process.env.GPUFLOW_CPU_SIMD = saved;
  }
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

describe.skipIf(skip)('jsBoxMuller: the fill\'s vector Box-Muller step on arguments the stream almost never makes', () => {
  // u on the uniforms' grid ((k + 1) 2^-53), moved by k steps of it.
  const grid = (u: number, k: number) => u + k * 2 ** -53;
  const u1s = [1, 0.5, 0.25, 2 ** -53, 2 ** -30, grid(1, -1), grid(1, -2), grid(1, -(2 ** 20)), grid(0.5, 1), grid(0.5, -1), grid(0.25, 3), Math.SQRT1_2, 0.7071067811865476];
  const u2s = [0.25, 0.5, 0.75, 1, 0.125, 0.375, 0.625, 0.875, 2 ** -53, 2 ** -30, grid(0.25, 1), grid(0.25, -1), grid(0.5, 1), grid(0.5, -2), grid(0.75, 1), grid(1, -1), grid(1, -3)];
  for (const simd of ['0', 'avx2', 'avx512']) {
    it(`GPUFLOW_CPU_SIMD=${simd}: u2 at n/4 exactly (t at n pi/2: fdlibm's second and third reduction pieces), u1 near powers of 2 (log's |f| < 2^-20 branch), mixed with random pairs`, () => {
      const u1: number[] = [];
      const u2: number[] = [];
      const rnd = new PhiloxStream(5, 'uniform', 0, 1, false);
      let i = 0;
      for (const a of u1s) for (const b of u2s) {
        // Each special pair among random ones, at a different lane of a batch of 16.
        for (let q = 0; q < (i % 16); q++) u1.push(rnd.at(2 * i + q)), u2.push(rnd.at(2 * i + q + 1));
        u1.push(a), u2.push(b);
        i++;
      }
      const [a, b] = [new Float64Array(u1), new Float64Array(u2)];
      const [c, s] = [new Float64Array(a.length), new Float64Array(a.length)];
      atSimd(simd, () => addon().jsBoxMuller(a, b, c, s));
      // The oracle: PhiloxStream's float64 normal formula in JS.
      const r = a.map((x) => Math.sqrt(-2 * Math.log(x)));
      const t = b.map((x) => 2 * Math.PI * x);
      expect(differing(c, r.map((x, k) => x * Math.cos(t[k])))).toEqual([]);
      expect(differing(s, r.map((x, k) => x * Math.sin(t[k])))).toEqual([]);
    });
  }
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
      it(`${c.dist}(${c.a}, ${c.b}) seed ${c.seed}, ${c.rows} x ${c.cols} from ${c.start} stride ${c.stride}, into ${type}, sync and async`, async () => {
        const outStride = c.cols + 3; // a gap after each row that the fill must leave alone
        const len = (c.rows - 1) * outStride + c.cols + 2;
        const make = () => (type === 'float64' ? new Float64Array(len) : new Float32Array(len)).fill(-7);
        const want = make();
        reference(c.seed, c.dist, c.a, c.b, c.start, c.rows, c.cols, c.stride, outStride, want);
        for (const threads of [1, 3]) {
          const got = make();
          addon().philoxFill(c.seed, c.dist === 'normal', c.a, c.b, c.start, c.rows, c.cols, c.stride, got, outStride, threads);
          expect(differing(got, want)).toEqual([]);
          const later = make();
          await addon().philoxFillAsync(c.seed, c.dist === 'normal', c.a, c.b, c.start, c.rows, c.cols, c.stride, later, outStride, threads);
          expect(differing(later, want)).toEqual([]);
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

  it('philoxFillAsync: the JS thread runs timers while 4 M normals fill, and the bytes equal PhiloxStream.read', async () => {
    const n = 2 ** 22 + 5;
    const got = new Float32Array(n);
    let ticks = 0;
    let filling = true;
    // A chain of immediates, each a turn of the event loop: with the fill on this thread (the sync
    // form, or the sync form behind a promise) none runs before the fill is done.
    const tick = (): void => {
      if (!filling) return;
      ticks++;
      setImmediate(tick);
    };
    setImmediate(tick);
    await addon().philoxFillAsync(99, true, 0, 1, 5, 1, n, n, got, n, 2);
    const ticksWhileFilling = ticks;
    filling = false;
    expect(ticksWhileFilling).toBeGreaterThan(0);
    const want = new Float64Array(n);
    new PhiloxStream(99, 'normal', 0, 1, false).read(5, want);
    expect(differing(got, Float32Array.from(want))).toEqual([]);
  });

  it('fillStreamAsync writes what fillStream writes, at an offset', async () => {
    const spec = { seed: 13, dist: 'uniform' as const, a: -1, b: 4 };
    const block = { start: 9, rows: 70, cols: 33, stride: 100 };
    const a = new Float64Array(7 + 69 * 40 + 33);
    const b = new Float64Array(a.length);
    expect(await fillStreamAsync(spec, block, a, 7, 40)).toBe('native');
    fillStreamJs(spec, block, b.subarray(7), 40);
    expect(differing(a, b)).toEqual([]);
    expect(a[7]).not.toBe(0);
  });

  // Pairs of seed 4242 whose lanes the vector path hands back to the scalar code (found by a scan):
  // u1 with |f| < 2^-20 in fdlibm's log, and angles whose high word is that of q pi/2, q = 1..4.
  const offPath = [
    { j: 1161563, what: 'log |f| < 2^-20' },
    { j: 1166634, what: 'log |f| < 2^-20' },
    { j: 1584854, what: 'angle at pi/2', pole: 1 },
    { j: 4887985, what: 'angle at pi', pole: 2 },
    { j: 4249840, what: 'angle at 3 pi/2', pole: 3 },
    { j: 2214014, what: 'angle at 2 pi', pole: 4 },
  ];
  for (const simd of ['0', 'avx2', 'avx512']) {
    it(`GPUFLOW_CPU_SIMD=${simd}: lanes off the vector path (${offPath.map((o) => o.what).join(', ')}) and a long block equal PhiloxStream`, () => {
      const words = new Uint32Array(4);
      const hi = new Uint32Array(new Float64Array(1).buffer);
      atSimd(simd, () => {
        for (const o of offPath) {
          // The pair really is what it is listed as (independently of the fill).
          philox4x32(o.j, 0, 0, 0, 4242, 0, words);
          const f64 = new Float64Array(hi.buffer);
          f64[0] = o.pole ? 2 * Math.PI * uniform64(words[2], words[3]) : uniform64(words[0], words[1]);
          const npio2hw = [0, 0x3ff921fb, 0x400921fb, 0x4012d97c, 0x401921fb];
          if (o.pole) expect(hi[1] & 0x7fffffff).toBe(npio2hw[o.pole]);
          else expect((2 + (hi[1] & 0xfffff)) & 0xfffff).toBeLessThan(3);
          const start = 2 * (o.j - 5); // the pair inside a batch of 16, not at its edge
          const want = new Float64Array(64);
          new PhiloxStream(4242, 'normal', 0.5, 2, false).read(start, want);
          const got = new Float64Array(64);
          addon().philoxFill(4242, true, 0.5, 2, start, 1, 64, 64, got, 64, 1);
          expect(differing(got, want)).toEqual([]);
        }
        const want = new Float64Array(100003);
        new PhiloxStream(7, 'normal', 0, 1, false).read(11, want);
        const got = new Float64Array(want.length);
        addon().philoxFill(7, true, 0, 1, 11, 1, want.length, want.length, got, want.length, 2);
        expect(differing(got, want)).toEqual([]);
      });
    });
  }

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
    expect(() => philoxFill(1, true, 0, 1, 2 ** 53 - 2, 1, 4, 4, out, 4, 1)).toThrow(/last element 9007199254740993 is past the stream's 2\^53 - 1/);
    expect(() => philoxFill(1, true, 0, 1, 0, 1, 4, 4, new Int32Array(4) as unknown as Float64Array, 4, 1)).toThrow(/out must be a Float64Array or Float32Array/);
    // The async form checks the same way, before anything is queued.
    const { philoxFillAsync } = addon();
    expect(() => philoxFillAsync(1, true, 0, 1, 0, 2, 6, 6, out, 6, 1)).toThrow(/out holds 10 elements; 2 rows of 6 at outStride 6 need 12/);
    expect(() => philoxFillAsync(1, true, 0, 1, 2 ** 53 - 2, 1, 4, 4, out, 4, 1)).toThrow(/last element 9007199254740993 is past the stream's 2\^53 - 1/);
  });
});
