/**
 * Cases adapted from dask/array/tests (slicing, reductions, shape ops, cumulative, where, astype,
 * histogram, percentile, tensordot) against NumPy: test/fixtures/arrays/dask/cases.json, written
 * by make_dask_fixtures.py, holds each case's workflow (inputs read with load_npy in chunks that
 * do not divide the shape) and NumPy's result. Every case runs here on the js backend and on
 * native-cpu (programs the addon cannot run fall back to js, as on a worker); the multi-worker
 * run of all cases in one workflow is test/integration/dask-array-cases.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNpy } from '../../../common/npy';
import type { ResultValue } from '../../../common/results';
import { loadNative } from '../../../native/index';
import type { ArrayBackend } from '../../../worker/kernels/backend';
import { createJsBackend } from '../../../worker/kernels/js';
import { createNativeCpuBackend } from '../../../worker/kernels/native-cpu';
import { localTasks } from '../../helpers/local-tasks';

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

export function expectedArray(file: string): { shape: number[]; data: number[] } {
  // A Uint8Array copy: readNpy slices its input, and a pooled Buffer slice would alias the pool.
  const a = readNpy(new Uint8Array(readFileSync(join(DASK_DIR, file))));
  return { shape: a.shape, data: Array.from(a.data as ArrayLike<number | bigint>, Number) };
}

export function valuesOf(r: ResultValue | undefined): { shape: number[]; data: number[] } {
  if (r?.kind === 'scalar') return { shape: [], data: [r.value] };
  if (r?.kind === 'array' && r.data) return { shape: r.shape, data: r.data };
  throw new Error(`unexpected result ${JSON.stringify(r)?.slice(0, 200)}`);
}

/** Compares one output with NumPy's: the shape exactly, values bit-exact or within `tol` (relative, at least absolute 1 scale). */
export function checkOutput(got: { shape: number[]; data: number[] }, file: string, tol: number, what: string): void {
  const want = expectedArray(file);
  expect(got.shape, `${what}: shape`).toEqual(want.shape);
  expect(got.data.length, `${what}: size`).toBe(want.data.length);
  got.data.forEach((x, i) => {
    const w = want.data[i];
    if (Number.isNaN(w) || tol === 0) expect(x, `${what}: element ${i}`).toBe(w);
    else expect(Math.abs(x - w), `${what}: element ${i}: ${x} vs ${w}`).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(w)));
  });
}

async function runCase(c: DaskCase, backends: ArrayBackend[]): Promise<void> {
  const results = await (await localTasks(c.doc, {}, {}, backends)).results();
  for (const [name, file] of Object.entries(c.expected)) checkOutput(valuesOf(results[name]), file, c.tol, `${c.name} -> ${name}`);
}

const native = loadNative();
const table = daskCases().map((c) => [`${c.name}  [${c.source}]`, c] as const);

describe('dask.array cases against NumPy (js)', () => {
  it('has at least 40 cases', () => expect(table.length).toBeGreaterThanOrEqual(40));
  it.each(table)('%s', (_, c) => runCase(c, [createJsBackend()]));
});

describe.skipIf('unavailable' in native)('dask.array cases against NumPy (native-cpu, js where it cannot)', () => {
  const nativeCpu = (): ArrayBackend => {
    const b = createNativeCpuBackend(2);
    if ('unavailable' in b) throw new Error(b.unavailable);
    return b;
  };
  it.each(table)('%s', (_, c) => runCase(c, [nativeCpu(), createJsBackend()]));
});
