/**
 * The seed workload's chunk kernel alone, for profiling on the GPU machine (ncu) and for quick
 * A/B of kernel variants: one 10000 x 10000 chunk of x = normal(10, 1, (N, N)) at block (1, 1),
 * `(x + 1)[::2, ::2].sum()` (sliced), `(x + 1).sum()` (full) or `x.sum()` (xsum), timed with
 * device events over back-to-back launches (native cudaBenchProgram). Prints one JSON line per
 * case: ms per chunk and G elements/s counting the chunk's 1e8 elements.
 *
 * --loop K: also the bare kernel loop over the whole N = 500000 array (2500 chunks, one addon call
 * each, K in flight, no engine): the reference the engine's scheduling cost is measured against.
 *
 *   GPUFLOW_NATIVE_DIR=... node .devbuild/seed-kernel.mjs [--reps 20] [--only float32:full,...] [--loop 16]
 *   ncu --kernel-name regex:fastKernel --launch-skip 1 --launch-count 1 node .devbuild/seed-kernel.mjs --reps 1 --only float64:sliced
 */
import { loadNative } from '../../native/index';
import { encodeProgram } from '../../native/program-code';
import { seedLoop, seedProgram } from './seed-loop';

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const reps = Number(opt('reps') ?? 20);
const only = opt('only')?.split(',');
const inFlight = Number(opt('loop') ?? 0);
const CHUNK = 10000;
const N = 500000;

async function main(): Promise<void> {
  const n = loadNative();
  if ('unavailable' in n) throw new Error(n.unavailable);
  for (const dtype of ['float64', 'float32'] as const)
    for (const mode of ['sliced', 'full', 'xsum'] as const) {
      if (only && !only.includes(`${dtype}:${mode}`)) continue;
      const program = seedProgram(dtype, N, CHUNK, 1, 1, mode);
      const ms = new Float64Array(1);
      await n.addon.cudaBenchProgram(encodeProgram(program, []), reps, ms);
      const chunks = (N / CHUNK) ** 2;
      console.log(JSON.stringify({ dtype, mode, msPerChunk: +ms[0].toFixed(4), gElemPerS: +((CHUNK * CHUNK) / ms[0] / 1e6).toFixed(1), fullRunSeconds: +((ms[0] * chunks) / 1000).toFixed(3) }));
      if (inFlight > 0) {
        const r = await seedLoop((code, out) => n.addon.cudaRunProgram(code, [], out), dtype, N, CHUNK, mode, inFlight);
        console.log(JSON.stringify({ dtype, mode, loop: `${inFlight} in flight`, seconds: +r.seconds.toFixed(3), value: r.value }));
      }
    }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
