/**
 * native-cpu's random leaves, scalar vs SIMD, in one process (GPUFLOW_CPU_SIMD is read on every
 * addon call): the seed workload `(normal(10, 1, (N, N)) + 1)[::2, ::2].sum()` ("sliced") and
 * `(x + 1).sum()` ("full") in chunks of 10000, float64 and float32, each level timed best of
 * --reps, levels interleaved. Writes JSON with the SIMD / scalar ratios.
 *
 *   npx tsx bench/native/cpu-seed.ts [--n 10000] [--threads 2] [--reps 2] [--out bench/results/native-cpu-seed-local.json]
 *
 * Elsewhere without node_modules (the GPU machine), bundle it first:
 *   npx esbuild bench/native/cpu-seed.ts --bundle --platform=node --format=esm --outfile=.devbuild/cpu-seed.mjs
 *   GPUFLOW_NATIVE_DIR=native/build node .devbuild/cpu-seed.mjs --n 40000 --threads 16 --out DIR/native-cpu-seed.json
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { loadNative, nativeInfo } from '../../native/index';
import { encodeProgram } from '../../native/program-code';
import { seedChunk } from '../../test/unit/native/programs';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string): string => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const CHUNK = 10000;
const n = Number(opt('--n', '10000'));
const threads = Number(opt('--threads', String(Math.min(16, cpus().length))));
const reps = Number(opt('--reps', '2'));
const out = opt('--out', 'bench/results/native-cpu-seed-local.json');
// "0": the scalar path; "avx2" / "avx512": at most that level (the best the CPU has when unset).
const levels = opt('--levels', '0,avx2,avx512').split(',');

const native = loadNative();
if ('unavailable' in native) throw new Error(native.unavailable);
const addon = native.addon;

async function seed(dtype: 'float64' | 'float32', mode: 'sliced' | 'full'): Promise<{ seconds: number; value: number }> {
  const k = n / CHUNK;
  const codes: Float64Array[] = [];
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) codes.push(encodeProgram(seedChunk(dtype, n, CHUNK, i, j, 'sum', mode === 'sliced'), []));
  const o = new Float64Array(1);
  let value = 0;
  const t = performance.now();
  for (const code of codes) {
    await addon.runProgram(code, [], o, threads);
    value += o[0];
  }
  return { seconds: (performance.now() - t) / 1000, value };
}

interface Row { dtype: string; mode: string; simd: string; seconds: number; elementsPerSecond: number; value: number }
const rows: Row[] = [];
for (const dtype of ['float64', 'float32'] as const)
  for (const mode of ['sliced', 'full'] as const) {
    const best = new Map<string, { seconds: number; value: number }>();
    for (let r = 0; r < reps; r++)
      for (const level of levels) {
        process.env.GPUFLOW_CPU_SIMD = level;
        const x = await seed(dtype, mode);
        const b = best.get(level);
        if (!b || x.seconds < b.seconds) best.set(level, x);
      }
    for (const level of levels) {
      const b = best.get(level)!;
      rows.push({ dtype, mode, simd: level === '0' ? 'scalar' : level, seconds: b.seconds, elementsPerSecond: (n * n) / b.seconds, value: b.value });
      console.log(`${dtype} ${mode.padEnd(6)} ${(level === '0' ? 'scalar' : level).padEnd(6)} ${b.seconds.toFixed(3)} s  ${((n * n) / b.seconds / 1e9).toFixed(3)} G elem/s (N*N)  sum ${b.value}`);
    }
  }
delete process.env.GPUFLOW_CPU_SIMD;

const ratios: Record<string, number> = {};
for (const r of rows) {
  if (r.simd === 'scalar') continue;
  const s = rows.find((x) => x.dtype === r.dtype && x.mode === r.mode && x.simd === 'scalar');
  if (s) ratios[`${r.dtype} ${r.mode} ${r.simd}/scalar`] = Number((s.seconds / r.seconds).toFixed(2));
}
const result = {
  bench: 'native-cpu seed workload, scalar vs SIMD random leaves (bench/native/cpu-seed.ts)',
  date: new Date().toISOString(),
  cpu: cpus()[0]?.model,
  cores: cpus().length,
  threads,
  n,
  chunk: CHUNK,
  reps,
  note: 'elementsPerSecond counts N*N elements (also for the sliced workload, which generates a quarter of them); a level the CPU lacks runs the best one it has',
  native: nativeInfo(),
  rows,
  ratios,
};
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
console.log(ratios);
console.log(`wrote ${out}`);
