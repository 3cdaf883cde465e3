/**
 * The dask.array cases against NumPy (test/fixtures/arrays/dask/cases.json, written by
 * make_dask_fixtures.py): loading them and comparing an output with NumPy's, for the unit run
 * (test/unit/engine/dask-array-cases.test.ts) and the multi-worker run
 * (test/integration/dask-array-cases.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { readNpy } from '../../common/npy';
import type { ResultValue } from '../../common/results';

export const DASK_DIR = 'test/fixtures/arrays/dask';

export interface DaskCase {
  name: string;
  source: string;
  doc: { format: string; nodes: Array<{ id: string; op: string; params: Record<string, unknown> }>; edges: Array<{ source: string; sourcePort: string; target: string; targetPort: string }> };
  /** Output name (node id, or id.port) -> expected .npy file. */
  expected: Record<string, string>;
  tol: number;
}

export const daskCases = (): DaskCase[] => JSON.parse(readFileSync(join(DASK_DIR, 'cases.json'), 'utf8')) as DaskCase[];

export function expectedArray(file: string, dir = DASK_DIR): { shape: number[]; data: number[] } {
  // A Uint8Array copy: readNpy slices its input, and a pooled Buffer slice would alias the pool.
  const a = readNpy(new Uint8Array(readFileSync(join(dir, file))));
  return { shape: a.shape, data: Array.from(a.data as ArrayLike<number | bigint>, Number) };
}

export function valuesOf(r: ResultValue | undefined): { shape: number[]; data: number[] } {
  if (r?.kind === 'scalar') return { shape: [], data: [r.value] };
  if (r?.kind === 'array' && r.data) return { shape: r.shape, data: r.data };
  throw new Error(`unexpected result ${JSON.stringify(r)?.slice(0, 200)}`);
}

/**
 * Compares one output with NumPy's (the .npy `file` in `dir`): the shape exactly, values bit-exact
 * or within `tol` (relative, at least absolute 1 scale); NaN and infinities exactly.
 */
export function checkOutput(got: { shape: number[]; data: number[] }, file: string, tol: number, what: string, dir = DASK_DIR): void {
  const want = expectedArray(file, dir);
  expect(got.shape, `${what}: shape`).toEqual(want.shape);
  expect(got.data.length, `${what}: size`).toBe(want.data.length);
  got.data.forEach((x, i) => {
    const w = want.data[i];
    // toBe tells -0 from 0, which NumPy's comparisons do not.
    if (!Number.isFinite(w) || tol === 0) expect(x === 0 && w === 0 ? 0 : x, `${what}: element ${i}`).toBe(w === 0 ? 0 : w);
    else expect(Math.abs(x - w), `${what}: element ${i}: ${x} vs ${w}`).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(w)));
  });
}
