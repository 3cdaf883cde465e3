/**
 * native-cpu against the js interpreter (worker/kernels/js/program.ts) for every leaf, op,
 * broadcast and reduction: uniforms and exact arithmetic bit for bit, transcendental results
 * within 1e-12 (float64) or 1e-6 (float32) of max(|js|, 1). Needs the addon that `npm install`
 * builds (native/build); set GPUFLOW_NO_NATIVE=1 to skip these tests on a machine without g++.
 */
import { describe, expect, it } from 'vitest';
import { runProgram as runJs } from '../../../worker/kernels/js/program';
import { createNativeCpuBackend } from '../../../worker/kernels/native-cpu';
import type { ArrayBackend } from '../../../worker/kernels/backend';
import { loadNative, nativeInfo } from '../../../native/index';
import { encodeProgram } from '../../../native/program-code';
import { cases, seedChunk } from './programs';
import { mismatch } from './compare';
import type { ChunkValue, Expr } from '../../../common/arrays';

const skip = process.env.GPUFLOW_NO_NATIVE === '1';

function backend(threads: number): ArrayBackend {
  const b = createNativeCpuBackend(threads);
  if ('unavailable' in b) throw new Error(`native-cpu unavailable: ${b.unavailable}`);
  return b;
}

describe.skipIf(skip)('native-cpu programs agree with js', () => {
  const cpu = backend(3);
  for (const c of cases()) {
    it(c.name, async () => {
      expect(cpu.supportsProgram(c.program)).toBe(true);
      const want = runJs(c.program, c.inputs);
      const got = await cpu.runProgram(c.program, c.inputs);
      const rel = c.program.dtype === 'float32' ? 1e-6 : 1e-12;
      expect(mismatch(got, want, c.exact ?? false, rel)).toBeNull();
    });
  }

  it('gives the same bits on 1 and 4 threads (fixed combination order)', async () => {
    const p = seedChunk('float64', 2000, 1000, 1, 1, 'var', false);
    const a = await backend(1).runProgram(p, []);
    const b = await backend(4).runProgram(p, []);
    expect(mismatch(a, b, true, 0)).toBeNull();
  });

  it('runs integer programs, except an int64 copy (exact on js, float64 would round beyond 2**53)', () => {
    expect(cpu.supportsProgram({ dtype: 'int32', shape: [2], expr: { kind: 'leaf', leaf: { kind: 'fill', value: 1 } } })).toBe(true);
    const copy: Expr = { kind: 'leaf', leaf: { kind: 'input', dep: 0, region: { start: [0], step: [1], count: [2] } } };
    expect(cpu.supportsProgram({ dtype: 'int64', shape: [2], expr: copy })).toBe(false);
    expect(cpu.supportsProgram({ dtype: 'int64', shape: [2], expr: copy, reduce: { op: 'sum', axis: null } })).toBe(false);
    expect(cpu.supportsProgram({ dtype: 'int32', shape: [2], expr: copy })).toBe(true);
  });

  it('keeps an exact int64 sum beyond 2**53 (the reduction folds on the host)', async () => {
    // (2**30 + k) * 2**14, each exact in float64 (about 2**44), 4096 of them: the total is about
    // 2**56, past 2**53 where a float64 sum rounds; the exact sum counted with BigInt here.
    const n = 1 << 12;
    const data = Int32Array.from({ length: n }, (_, k) => 2 ** 30 + k);
    const p = { dtype: 'int64' as const, shape: [n], expr: { kind: 'binary' as const, op: 'mul' as const, a: { kind: 'leaf' as const, leaf: { kind: 'input' as const, dep: 0, region: { start: [0], step: [1], count: [n] } } }, b: { kind: 'leaf' as const, leaf: { kind: 'fill' as const, value: 2 ** 14 } } }, reduce: { op: 'sum' as const, axis: null } };
    const inputs: ChunkValue[] = [{ kind: 'array', array: { dtype: 'int32', shape: [n], data } }];
    const got = await cpu.runProgram(p, inputs);
    let want = 0n;
    for (const v of data) want += BigInt(v) * 2n ** 14n;
    expect(got.kind === 'partial' ? got.partial.isum?.[0] : undefined).toBe(want);
  });
});

describe.skipIf(skip)('the addon boundary', () => {
  const n = loadNative();
  if ('unavailable' in n) throw new Error(n.unavailable);
  const addon = n.addon;
  const good = encodeProgram({ dtype: 'float64', shape: [2, 3], expr: { kind: 'leaf', leaf: { kind: 'input', dep: 0, region: { start: [0, 0], step: [1, 1], count: [2, 3] } } } }, [[2, 3]]);

  it('reports what it has', () => {
    const info = nativeInfo();
    expect(info.available).toBe(true);
    expect(info.backends).toContain('native-cpu');
    if (!info.cuda) expect(info.cudaReason).toMatch(/\S/);
  });

  it('rejects bad arguments with TypeError / RangeError', () => {
    const out = new Float64Array(6);
    expect(() => addon.runProgram(new Float32Array(3) as unknown as Float64Array, [new Float64Array(6)], out, 1)).toThrow(TypeError);
    expect(() => addon.runProgram(good, [new Float64Array(6)], new Float64Array(5), 1)).toThrow(/out has 5 elements/);
    expect(() => addon.runProgram(good, [new Float64Array(6)], new Float32Array(6), 1)).toThrow(TypeError);
    expect(() => addon.runProgram(good, [], out, 1)).toThrow(/only 0 inputs/);
    expect(() => addon.runProgram(good, [new Float64Array(6)], out, 0)).toThrow(RangeError);
    expect(() => addon.runProgram(good.subarray(0, good.length - 1), [new Float64Array(6)], out, 1)).toThrow(/program code/);
    expect(() => addon.matmul(new Float64Array(4), new Float32Array(4), null, 2, 2, 2, new Float64Array(4), 1)).toThrow(TypeError);
    expect(() => addon.qr(new Float64Array(6), 2, 3, new Float64Array(6), new Float64Array(9), 1)).toThrow(/tall-skinny/);
  });

  it('refuses a leaf that would read past its input', () => {
    // The same program, but the input holds 5 elements where the region needs 6.
    expect(() => addon.runProgram(good, [new Float64Array(5)], new Float64Array(6), 1)).toThrow(/reads index 5 of dependency 0, which has 5 elements/);
  });

  it('resolves asynchronously, off the JS thread', async () => {
    const out = new Float64Array(6);
    const p = addon.runProgram(good, [Float64Array.from([1, 2, 3, 4, 5, 6])], out, 1);
    expect(p).toBeInstanceOf(Promise);
    await p;
    expect(Array.from(out)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe.skipIf(skip)('cudaStatus', () => {
  it("answers info()'s CUDA availability and reason alone (the cuda backend's start asks it, without the CPU BLAS lookup)", () => {
    const n = loadNative();
    if ('unavailable' in n) throw new Error(n.unavailable);
    const info = n.addon.info();
    const status = n.addon.cudaStatus();
    expect(status.cuda).toBe(info.cuda);
    expect(status).toEqual(info.cuda ? { cuda: true } : { cuda: false, cudaReason: info.cudaReason });
  });
});
