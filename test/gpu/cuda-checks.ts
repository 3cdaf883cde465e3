/**
 * The GPU checks: every CUDA op against the js reference. Uniforms and exact arithmetic bit for
 * bit; float64 transcendental results within 1e-12 of max(|js|, 1); float32 ones within 2e-6
 * (the device uses float32 logf / sincosf where js rounds double results). matmul / qr / svd
 * against native-cpu and their defining identities. Shared by test/gpu/cuda.test.ts (vitest) and
 * bench/native/device-run.ts (bundled to run where node_modules is absent).
 */
import type { ChunkProgram, ChunkValue, NDArray } from '../../common/arrays';
import { runProgram as runJs } from '../../worker/kernels/js/program';
import type { ArrayBackend } from '../../worker/kernels/backend';
import { bin, cases, fill, lcgMatrix, normal, region, seedChunk, un, uniform } from '../unit/native/programs';
import { mismatch } from '../unit/native/compare';

export interface CheckResult {
  name: string;
  error: string | null;
}

/** max |a - b| / max |b|: the relative error the GPU checks hold results to. */
export function maxRelDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < b.length; i++) {
    num = Math.max(num, Math.abs(a[i] - b[i]));
    den = Math.max(den, Math.abs(b[i]));
  }
  return num / Math.max(den, 1e-300);
}

function product(a: NDArray, b: NDArray, transA = false): Float64Array {
  const [m, k] = transA ? [a.shape[1], a.shape[0]] : [a.shape[0], a.shape[1]];
  const n = b.shape[1];
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let p = 0; p < k; p++) {
      const x = transA ? a.data[p * m + i] : a.data[i * k + p];
      for (let j = 0; j < n; j++) out[i * n + j] += (x as number) * (b.data[p * n + j] as number);
    }
  return out;
}

/** Named checks run one after another; a check that throws fails with what it threw. */
export function checkList(): { results: CheckResult[]; check: (name: string, f: () => Promise<string | null>) => Promise<void> } {
  const results: CheckResult[] = [];
  const check = async (name: string, f: () => Promise<string | null>) => {
    try {
      results.push({ name, error: await f() });
    } catch (e) {
      results.push({ name, error: `threw ${e instanceof Error ? e.message : String(e)}` });
    }
  };
  return { results, check };
}

export async function runCudaChecks(cuda: ArrayBackend, cpu: ArrayBackend): Promise<CheckResult[]> {
  const { results, check } = checkList();
  for (const c of cases()) {
    await check(`program: ${c.name}`, async () => {
      if (!cuda.supportsProgram(c.program)) return 'not supported';
      const want: ChunkValue = runJs(c.program, c.inputs);
      const got = await cuda.runProgram(c.program, c.inputs);
      return mismatch(got, want, c.exact ?? false, c.program.dtype === 'float32' ? 2e-6 : 1e-12);
    });
  }
  // The specialised kernel (native/src/cuda/fast.cu): random leaf -> scalar ops -> strided
  // region -> reduction over all axes, in each of its modes (column step 1: Philox-block items;
  // float32 step 2: half blocks; other steps: one element per item), odd offsets and ragged
  // rows included, against js.
  for (const dtype of ['float64', 'float32'] as const)
    for (const dist of ['normal', 'uniform'] as const)
      for (const [start, step, count] of [[[3, 5], [1, 1], [37, 53]], [[1, 2], [2, 2], [40, 31]], [[2, 7], [3, 2], [25, 19]], [[0, 1], [1, 3], [30, 22]], [[5, 9], [2, 1], [1, 61]]] as const)
        for (const op of ['sum', 'mean', 'min', 'max', 'var', 'std'] as const) {
          const shape = [200, 200];
          const reg = region([...start], [...step], [...count]);
          const lf = dist === 'normal' ? normal(77, shape, reg, 3, 2) : uniform(78, shape, reg, -1, 4);
          const expr = bin('div', bin('mul', un('neg', bin('sub', bin('add', lf, fill(1)), fill(0.25))), fill(3)), fill(7));
          const program: ChunkProgram = { dtype, shape: [...count], expr, reduce: { op, axis: null } };
          await check(`program (specialised): ${dtype} ${dist} start ${start} step ${step} count ${count} ${op}`, async () => {
            if (!cuda.supportsProgram(program)) return 'not supported';
            return mismatch(await cuda.runProgram(program, []), runJs(program, []), false, dtype === 'float32' ? 2e-6 : 1e-12);
          });
        }
  // float32 with constants that are not floats (0.1, 1.7): the ops run in double and round to
  // float after each, as js does; float constants (above) take the kernel's float path.
  for (const dist of ['normal', 'uniform'] as const)
    for (const [start, step, count] of [[[3, 5], [1, 1], [37, 53]], [[1, 2], [2, 2], [40, 31]], [[2, 7], [3, 2], [25, 19]]] as const) {
      const reg = region([...start], [...step], [...count]);
      const lf = dist === 'normal' ? normal(79, [200, 200], reg, 3, 2) : uniform(80, [200, 200], reg, -1, 4);
      const program: ChunkProgram = { dtype: 'float32', shape: [...count], expr: bin('mul', bin('add', lf, fill(0.1)), fill(1.7)), reduce: { op: 'sum', axis: null } };
      await check(`program (specialised): float32 ${dist} step ${step} (x + 0.1) * 1.7 sum`, async () => {
        if (!cuda.supportsProgram(program)) return 'not supported';
        return mismatch(await cuda.runProgram(program, []), runJs(program, []), false, 2e-6);
      });
    }
  // A 1-d region.
  for (const dtype of ['float64', 'float32'] as const) {
    const program: ChunkProgram = { dtype, shape: [999], expr: bin('add', normal(5, [5000], region([11], [3], [999])), fill(2)), reduce: { op: 'sum', axis: null } };
    await check(`program (specialised): ${dtype} 1-d step 3 sum`, async () => mismatch(await cuda.runProgram(program, []), runJs(program, []), false, dtype === 'float32' ? 2e-6 : 1e-12));
  }
  for (const dtype of ['float64', 'float32'] as const) {
    await check(`program: ${dtype} seed chunk 2000^2 sum against native-cpu`, async () => {
      const p = seedChunk(dtype, 8000, 2000, 3, 1, 'sum');
      return mismatch(await cuda.runProgram(p, []), await cpu.runProgram(p, []), false, dtype === 'float32' ? 1e-9 : 1e-12);
    });
    await check(`matmul ${dtype} 300x200 @ 200x250 + c0`, async () => {
      const a = lcgMatrix(300, 200, 1, dtype);
      const b = lcgMatrix(200, 250, 2, dtype);
      const c0 = lcgMatrix(300, 250, 3, dtype);
      const got = await cuda.matmul!(a, b, c0);
      const want = product(a, b).map((x, i) => x + (c0.data[i] as number));
      const d = maxRelDiff(got.data as Float64Array, want);
      return d <= (dtype === 'float32' ? 1e-5 : 1e-12) ? null : `max rel diff ${d}`;
    });
    await check(`qr ${dtype} 500x40`, async () => {
      const a = lcgMatrix(500, 40, 4, dtype);
      const { q, r } = await cuda.qr!(a);
      const tol = dtype === 'float32' ? 1e-5 : 1e-12;
      const d = maxRelDiff(product(q, r), a.data as Float64Array);
      if (d > tol) return `Q R differs from A by ${d}`;
      const qtq = product(q, q, true);
      for (let i = 0; i < 40; i++)
        for (let j = 0; j < 40; j++) if (Math.abs(qtq[i * 40 + j] - (i === j ? 1 : 0)) > tol * 10) return `Q^T Q [${i},${j}] = ${qtq[i * 40 + j]}`;
      for (let i = 0; i < 40; i++) {
        if ((r.data[i * 40 + i] as number) < 0) return `R[${i},${i}] < 0`;
        for (let j = 0; j < i; j++) if (r.data[i * 40 + j] !== 0) return `R not upper triangular at [${i},${j}]`;
      }
      const cr = (await cpu.qr!(a)).r;
      const dr = maxRelDiff(r.data as Float64Array, cr.data as Float64Array);
      return dr <= tol * 100 ? null : `R differs from native-cpu by ${dr}`;
    });
    for (const [m, n] of [[400, 30], [30, 70]] as const) {
      await check(`svd ${dtype} ${m}x${n}`, async () => {
        const a = lcgMatrix(m, n, 5, dtype);
        const { u, s, vt } = await cuda.svd!(a);
        const p = Math.min(m, n);
        const us = new Float64Array(m * p);
        for (let i = 0; i < m; i++) for (let k = 0; k < p; k++) us[i * p + k] = (u.data[i * p + k] as number) * (s.data[k] as number);
        const tol = dtype === 'float32' ? 2e-5 : 1e-12;
        const d = maxRelDiff(product({ dtype: 'float64', shape: [m, p], data: us }, vt), a.data as Float64Array);
        if (d > tol * 10) return `U S Vt differs from A by ${d}`;
        const cs = (await cpu.svd!(a)).s;
        const ds = maxRelDiff(s.data as Float64Array, cs.data as Float64Array);
        return ds <= tol * 10 ? null : `singular values differ from native-cpu by ${ds}`;
      });
    }
  }
  return results;
}
