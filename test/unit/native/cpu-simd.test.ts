/**
 * native-cpu's random leaves at every SIMD level (GPUFLOW_CPU_SIMD, read by the addon on every
 * call: 0 scalar, avx2, avx512; a level the CPU lacks runs the best one it has) against the js
 * reference: tiles whose length is no multiple of the vector width, odd starts, strided slices
 * (even and odd steps, the even / odd members of a pair), counters past 2^32, float64 and
 * float32, normal and uniform. Uniforms bit for bit, normals within 1e-12 (float64) / 1e-6
 * (float32) of max(|js|, 1), as native-cpu.test.ts; sums of uniforms the same bits at every level.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ChunkProgram, DType } from '../../../common/arrays';
import { runProgram as runJs } from '../../../worker/kernels/js/program';
import { createNativeCpuBackend } from '../../../worker/kernels/native-cpu';
import { bin, fill, normal, region, uniform } from './programs';
import { mismatch } from './compare';

const skip = process.env.GPUFLOW_NO_NATIVE === '1';
const levels = ['0', 'avx2', 'avx512'];
const saved = process.env.GPUFLOW_CPU_SIMD;

interface Leaf { name: string; dtype: DType; dist: 'normal' | 'uniform'; shape: number[]; start: number[]; step: number[]; count: number[] }

function leaves(): Leaf[] {
  const out: Leaf[] = [];
  for (const dtype of ['float64', 'float32'] as const)
    for (const dist of ['normal', 'uniform'] as const) {
      const add = (name: string, shape: number[], start: number[], step: number[], count: number[]) => out.push({ name: `${dtype} ${dist} ${name}`, dtype, dist, shape, start, step, count });
      // Rows longer than one tile (512) and of every length mod 16, from every start mod 4.
      for (const start of [0, 1, 2, 3]) add(`1-d from ${start}, 1100 long`, [1200], [start], [1], [1100]);
      for (const len of [1, 2, 3, 5, 7, 9, 15, 17, 31, 33]) add(`rows of ${len} from an odd column`, [9, 80], [1, 3], [1, 1], [8, len]);
      for (const step of [2, 3, 4, 6, 8]) {
        add(`[::${step}] even start`, [12, 2000], [2, 0], [1, step], [3, Math.floor(2000 / step)]);
        add(`[1::${step}] odd start`, [12, 2000], [2, 1], [1, step], [3, Math.floor(1999 / step)]);
        add(`[3::${step}], 7 long`, [4, 64], [0, 3], [2, step], [2, 7]);
      }
      // The seed slice: even rows and columns (cosines only), odd ones (sines only).
      add('[::2, ::2]', [200, 200], [0, 0], [2, 2], [100, 100]);
      add('[1::2, 1::2]', [200, 200], [1, 1], [2, 2], [99, 99]);
      // Philox counters whose high word is not zero, crossing 2^32 (float64 at 2^33, float32 at 2^34).
      const at = dtype === 'float64' ? 2 ** 33 : 2 ** 34;
      add('across counter 2^32', [2 ** 35], [at - 301], [1], [700]);
      add('across counter 2^32, [::2]', [2 ** 35], [at - 600], [2], [700]);
    }
  return out;
}

function program(l: Leaf, reduce = false): ChunkProgram {
  const reg = region(l.start, l.step, l.count);
  const x = l.dist === 'normal' ? normal(77, l.shape, reg, 10, 1) : uniform(78, l.shape, reg, -2, 3);
  const p: ChunkProgram = { dtype: l.dtype, shape: l.count, expr: reduce ? bin('add', x, fill(1)) : x };
  if (reduce) p.reduce = { op: 'sum', axis: null };
  return p;
}

describe.skipIf(skip)('native-cpu random leaves at every SIMD level agree with js', () => {
  const b = createNativeCpuBackend(2);
  if ('unavailable' in b) throw new Error(`native-cpu unavailable: ${b.unavailable}`);
  afterAll(() => {
    if (saved === undefined) delete process.env.GPUFLOW_CPU_SIMD;
    else process.env.GPUFLOW_CPU_SIMD = saved;
  });

  for (const l of leaves())
    it(l.name, async () => {
      const p = program(l);
      const want = runJs(p, []);
      for (const level of levels) {
        process.env.GPUFLOW_CPU_SIMD = level;
        const got = await b.runProgram(p, []);
        const rel = l.dtype === 'float32' ? 1e-6 : 1e-12;
        expect(mismatch(got, want, l.dist === 'uniform', rel), `level ${level}`).toBeNull();
      }
    });

  for (const dtype of ['float64', 'float32'] as const)
    for (const dist of ['normal', 'uniform'] as const)
      it(`${dtype} ${dist} (x + 1).sum(): js within rounding, the same bits at every level for uniforms`, async () => {
        const l: Leaf = { name: '', dtype, dist, shape: [300, 1500], start: [5, 3], step: [1, 1], count: [40, 1497] };
        const p = program(l, true);
        const want = runJs(p, []);
        const sums: number[] = [];
        for (const level of levels) {
          process.env.GPUFLOW_CPU_SIMD = level;
          const got = await b.runProgram(p, []);
          expect(mismatch(got, want, false, 1e-12), `level ${level}`).toBeNull();
          if (got.kind === 'partial') sums.push(got.partial.fields.sum[0]);
        }
        expect(sums.length).toBe(levels.length);
        if (dist === 'uniform') expect(new Set(sums).size).toBe(1);
      });
});
