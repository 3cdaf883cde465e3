import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNpy, writeNpy } from '../../../common/npy';

const DIR = join(__dirname, '../../fixtures/arrays/npy');
const file = (name: string): Uint8Array => new Uint8Array(readFileSync(join(DIR, name)));

// make_fixtures.py: C-order flat values are k * 1.5 - 3 (floats) and k * 7 - 20 (ints).
const floats = (n: number): number[] => Array.from({ length: n }, (_, k) => k * 1.5 - 3);
const ints = (n: number): number[] => Array.from({ length: n }, (_, k) => k * 7 - 20);

describe('readNpy', () => {
  it('reads every supported dtype that numpy wrote', () => {
    const f8 = readNpy(file('f8_3x4.npy'));
    expect(f8.dtype).toBe('float64');
    expect(f8.shape).toEqual([3, 4]);
    expect(f8.data).toBeInstanceOf(Float64Array);
    expect(Array.from(f8.data as Float64Array)).toEqual(floats(12));

    const f4 = readNpy(file('f4_5.npy'));
    expect(f4.dtype).toBe('float32');
    expect(f4.shape).toEqual([5]);
    expect(Array.from(f4.data as Float32Array)).toEqual(floats(5));

    const i4 = readNpy(file('i4_2x3x4.npy'));
    expect(i4.dtype).toBe('int32');
    expect(i4.shape).toEqual([2, 3, 4]);
    expect(Array.from(i4.data as Int32Array)).toEqual(ints(24));

    const i8 = readNpy(file('i8_4x2.npy'));
    expect(i8.dtype).toBe('int64');
    expect(i8.shape).toEqual([4, 2]);
    expect(Array.from(i8.data as BigInt64Array)).toEqual(ints(8).map((k) => BigInt(k) * 1_000_000_007n));
  });

  it('reads scalars and empty arrays', () => {
    const s = readNpy(file('f8_scalar.npy'));
    expect(s.shape).toEqual([]);
    expect(Array.from(s.data as Float64Array)).toEqual([2.5]);
    const e = readNpy(file('f8_0x3.npy'));
    expect(e.shape).toEqual([0, 3]);
    expect(e.data.length).toBe(0);
  });

  it('transposes Fortran-ordered files into C order', () => {
    const f = readNpy(file('f8_fortran_3x4.npy'));
    expect(f.shape).toEqual([3, 4]);
    expect(Array.from(f.data as Float64Array)).toEqual(floats(12));
    const g = readNpy(file('i4_fortran_2x3x4.npy'));
    expect(g.shape).toEqual([2, 3, 4]);
    expect(Array.from(g.data as Int32Array)).toEqual(ints(24));
  });

  it('reads format versions 2.0 and 3.0', () => {
    expect(file('f8_v2_3x4.npy')[6]).toBe(2);
    expect(Array.from(readNpy(file('f8_v2_3x4.npy')).data as Float64Array)).toEqual(floats(12));
    expect(file('f4_v3_5.npy')[6]).toBe(3);
    expect(Array.from(readNpy(file('f4_v3_5.npy')).data as Float32Array)).toEqual(floats(5));
  });

  it('reads from an unaligned view without aliasing it', () => {
    const bytes = file('f8_3x4.npy');
    const shifted = new Uint8Array(bytes.length + 3);
    shifted.set(bytes, 3);
    const a = readNpy(shifted.subarray(3));
    expect(Array.from(a.data as Float64Array)).toEqual(floats(12));
    shifted.fill(0);
    expect((a.data as Float64Array)[1]).toBe(-1.5);
  });

  it('refuses big-endian and unsupported dtypes, naming them', () => {
    expect(() => readNpy(file('big_endian_f8.npy'))).toThrow(/big-endian dtype '>f8'/);
    expect(() => readNpy(file('complex128.npy'))).toThrow(/dtype '<c16' is not supported/);
  });

  it('reads NumPy\'s bool (|b1) as one byte a value', () => {
    const a = readNpy(file('bool.npy'));
    expect(a.dtype).toBe('bool');
    expect(a.shape).toEqual([2]);
    expect(Array.from(a.data as Uint8Array)).toEqual([1, 0]);
    // Written back, the header says '|b1' and the data is the same two bytes.
    const again = readNpy(writeNpy(a));
    expect(again.dtype).toBe('bool');
    expect(Array.from(again.data as Uint8Array)).toEqual([1, 0]);
  });

  it('refuses malformed files with a clear reason', () => {
    expect(() => readNpy(new Uint8Array([1, 2, 3]))).toThrow(/not a \.npy file/);
    const good = file('f8_3x4.npy');
    expect(() => readNpy(good.subarray(0, good.length - 8))).toThrow(/needs 96 data bytes, file has 88/);
    const badVersion = good.slice();
    badVersion[6] = 9;
    expect(() => readNpy(badVersion)).toThrow(/version 9\.0 is not supported/);
    const evil = writeNpy({ dtype: 'float64', shape: [1], data: new Float64Array([1]) });
    // Replace the shape with a call expression: parsed, never evaluated.
    const text = new TextDecoder('latin1').decode(evil.subarray(10, 74)).replace("(1,)", "f(1) ");
    evil.set(new TextEncoder().encode(text), 10);
    expect(() => readNpy(evil)).toThrow(/npy header: expected a dict, tuple/);
  });
});

describe('writeNpy', () => {
  it('writes byte for byte what numpy.save writes', () => {
    for (const name of ['f8_3x4.npy', 'f4_5.npy', 'i4_2x3x4.npy', 'i8_4x2.npy', 'f8_scalar.npy', 'f8_0x3.npy']) {
      const bytes = file(name);
      expect(Buffer.from(writeNpy(readNpy(bytes))).equals(Buffer.from(bytes)), name).toBe(true);
    }
  });

  it('round-trips every dtype', () => {
    const arrays = [
      { dtype: 'float64' as const, shape: [2, 3], data: new Float64Array([1, -2, 3.5, Math.PI, -0, 1e-300]) },
      { dtype: 'float32' as const, shape: [3], data: new Float32Array([1.25, -7, 3e30]) },
      { dtype: 'int32' as const, shape: [1, 2, 2], data: new Int32Array([1, -2, 2147483647, -2147483648]) },
      { dtype: 'int64' as const, shape: [2], data: new BigInt64Array([9007199254740993n, -5n]) },
    ];
    for (const a of arrays) {
      const back = readNpy(writeNpy(a));
      expect(back.dtype).toBe(a.dtype);
      expect(back.shape).toEqual(a.shape);
      expect(back.data).toEqual(a.data);
    }
  });

  it('aligns the data to 64 bytes and switches to version 2.0 for huge headers', () => {
    const small = writeNpy({ dtype: 'float64', shape: [2], data: new Float64Array(2) });
    expect(small[6]).toBe(1);
    expect((small.length - 16) % 64).toBe(0);
    const shape = Array.from({ length: 25000 }, () => 1);
    const big = writeNpy({ dtype: 'int32', shape, data: new Int32Array([42]) });
    expect(big[6]).toBe(2);
    const back = readNpy(big);
    expect(back.shape).toEqual(shape);
    expect(Array.from(back.data as Int32Array)).toEqual([42]);
  });

  it('refuses data that does not match the shape or dtype', () => {
    expect(() => writeNpy({ dtype: 'float64', shape: [3], data: new Float64Array(2) })).toThrow(/shape \[3\] has 3 elements, data has 2/);
    expect(() => writeNpy({ dtype: 'float64', shape: [2], data: new Float32Array(2) })).toThrow(/dtype float64 does not match its data \(a Float32Array\)/);
  });
});
