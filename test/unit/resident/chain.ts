/**
 * The chains the residency tests run, shared by the unit tests (a fake device) and the GPU checks
 * (test/gpu/resident-checks.ts, the real addon): elementwise programs that read the previous
 * chunk (unfused, as separate tasks), then matmul -> matmul, then a reduction.
 */
import type { ChunkProgram, DType } from '../../../common/arrays';
import { bin, fill, leaf, normal, region, un, uniform } from '../native/programs';

/** normal(seed) over an r x c chunk, times 0.5. */
export function generate(dtype: DType, r: number, c: number, seed = 7): ChunkProgram {
  return { dtype, shape: [r, c], expr: bin('mul', normal(seed, [r, c], region([0, 0], [1, 1], [r, c]), 0, 1), fill(0.5)) };
}

/** uniform(seed) over an r x c chunk. */
export function generateUniform(dtype: DType, r: number, c: number, seed = 11): ChunkProgram {
  return { dtype, shape: [r, c], expr: uniform(seed, [r, c], region([0, 0], [1, 1], [r, c]), -1, 1) };
}

const whole = (r: number, c: number) => region([0, 0], [1, 1], [r, c]);
const input = (dep: number, r: number, c: number) => leaf({ kind: 'input', dep, region: whole(r, c) });

/** tanh(x0) + 0.25 * x1 over two r x c inputs (one input when x1 is x0). */
export function elementwise(dtype: DType, r: number, c: number, two: boolean): ChunkProgram {
  const x1 = two ? input(1, r, c) : input(0, r, c);
  return { dtype, shape: [r, c], expr: bin('add', un('tanh', input(0, r, c)), bin('mul', x1, fill(0.25))) };
}

/** sum of x0^2 over an r x c input (a partial: comes back to the host). */
export function sumSquares(dtype: DType, r: number, c: number): ChunkProgram {
  return { dtype, shape: [r, c], expr: un('square', input(0, r, c)), reduce: { op: 'sum', axis: null } };
}
