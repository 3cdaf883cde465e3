/**
 * The seed workload as bare addon calls, shared by device-run.ts and seed-kernel.ts: one chunk's
 * program (`(x + 1)[::2, ::2].sum()` sliced, `(x + 1).sum()` full, `x.sum()` xsum, with
 * x = normal(10, 1, (n, n)) in chunks of `chunk`), and the loop that runs every chunk through one
 * addon call, `inFlight` at a time, with no engine: what the engine's cost is measured against.
 */
import type { ChunkProgram } from '../../common/arrays';
import { encodeProgram } from '../../native/program-code';
import { seedChunk } from '../../test/unit/native/programs';

export type SeedMode = 'sliced' | 'full' | 'xsum';

export function seedProgram(dtype: 'float64' | 'float32', n: number, chunk: number, bi: number, bj: number, mode: SeedMode): ChunkProgram {
  if (mode === 'xsum') {
    const p = seedChunk(dtype, n, chunk, bi, bj, 'sum', false);
    return { ...p, expr: (p.expr as Extract<ChunkProgram['expr'], { kind: 'binary' }>).a };
  }
  return seedChunk(dtype, n, chunk, bi, bj, 'sum', mode === 'sliced');
}

export async function seedLoop(run: (code: Float64Array, out: Float64Array) => Promise<void>, dtype: 'float64' | 'float32', n: number, chunk: number, mode: SeedMode, inFlight: number): Promise<{ seconds: number; value: number }> {
  const k = n / chunk;
  // Encode every chunk's program up front: the loop times the kernels, not the encoder.
  const codes: Float64Array[] = [];
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) codes.push(encodeProgram(seedProgram(dtype, n, chunk, i, j, mode), []));
  const outs = codes.map(() => new Float64Array(1));
  const t = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < codes.length) {
      const i = next++;
      await run(codes[i], outs[i]);
    }
  }));
  return { seconds: (performance.now() - t) / 1000, value: outs.reduce((s, o) => s + o[0], 0) };
}
