/**
 * native-cpu's matmul, SVD and QR beside NumPy, same machine, same run, same thread count
 * (issue #4: native-cpu >= NumPy per core). gpuflow first (the addon's calls, as the native-cpu
 * backend makes them), then bench/native/cpu-linalg.py in a child process with
 * OPENBLAS_NUM_THREADS = threads, on the very same SVD / QR inputs (.npy files). Best of `reps`
 * after one warm-up call each. SVD and QR run twice on our side: the default path (LAPACK when
 * the addon found one) and our own kernels (GPUFLOW_LAPACK=0).
 *
 *   npx tsx bench/native/cpu-linalg.ts   (from the repository root)
 *      [--threads T] [--n 2048] [--svd 4000x400] [--quick] [--out FILE]
 *
 * Writes FILE (default bench/results/native-cpu-linalg.json): rows, and `ratios`: NumPy seconds /
 * gpuflow seconds per op (>= 1: gpuflow at least as fast). On the GPU machine (no node_modules),
 * bundle it first: see the command in docs/linalg.md ("native-cpu").
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { NDArray } from '../../common/arrays';
import { writeNpy } from '../../common/npy';
import { loadNative } from '../../native/index';
import { createNativeCpuBackend } from '../../worker/kernels/native-cpu';
import type { ArrayBackend } from '../../worker/kernels/backend';
import { uniformMatrix } from './matrices';

type Row = Record<string, string | number | number[] | null>;
const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const quick = args.includes('--quick');
const threads = Number(opt('--threads', String(cpus().length)));
const N = Number(opt('--n', quick ? '512' : '2048'));
const [SM, SN] = opt('--svd', quick ? '800x80' : '4000x400').split('x').map(Number);
const outFile = opt('--out', 'bench/results/native-cpu-linalg.json');
const reps = quick ? 2 : 5;

async function best(f: () => Promise<unknown>, n: number): Promise<number> {
  await f();
  let b = Infinity;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    b = Math.min(b, (performance.now() - t) / 1000);
  }
  return b;
}

async function main() {
  const loaded = loadNative();
  if ('unavailable' in loaded) throw new Error(`addon unavailable: ${loaded.unavailable}`);
  const info = loaded.addon.info() as unknown as { blas: string; lapack?: string; blasCore?: string };
  const made = createNativeCpuBackend(threads);
  if ('unavailable' in made) throw new Error(made.unavailable);
  const cpu = made as ArrayBackend;
  const rows: Row[] = [];
  const log = (r: Row) => {
    rows.push(r);
    console.log(JSON.stringify(r));
  };
  const tmp = mkdtempSync(join(tmpdir(), 'gpuflow-cpu-linalg-'));
  const spec = { threads, blas: info.blas, matmul: [] as Row[], svd: [] as Row[], qr: [] as Row[] };
  const lapackWas = process.env.GPUFLOW_LAPACK;
  const setLapack = (on: boolean) => {
    if (on && lapackWas === undefined) delete process.env.GPUFLOW_LAPACK;
    else process.env.GPUFLOW_LAPACK = on ? lapackWas! : '0';
  };
  try {
    for (const dtype of ['float64', 'float32'] as const) {
      const a = uniformMatrix(N, N, dtype, 1);
      const b = uniformMatrix(N, N, dtype, 2);
      const impl = `gpuflow native-cpu (${info.blas || 'own kernel'})`;
      log({ op: 'matmul', impl, dtype, shape: [N, N], threads, seconds: await best(() => cpu.matmul!(a, b), reps) });
      spec.matmul.push({ dtype, n: N, reps });
    }
    // SVD: tall (the shape), and its transpose; QR of the tall one.
    for (const [m, n] of [[SM, SN], [SN, SM]]) {
      const a = uniformMatrix(m, n, 'float64', 5);
      const file = join(tmp, `svd-${m}x${n}.npy`);
      writeFileSync(file, writeNpy(a));
      for (const own of info.lapack ? [false, true] : [true]) {
        setLapack(!own);
        const impl = own ? 'gpuflow native-cpu (own Jacobi, GPUFLOW_LAPACK=0)' : `gpuflow native-cpu (dgesdd from ${info.lapack})`;
        log({ op: 'svd', impl, dtype: 'float64', shape: [m, n], threads, seconds: await best(() => cpu.svd!(a), own ? 1 : reps) });
      }
      setLapack(true);
      spec.svd.push({ file, reps });
    }
    {
      const a = uniformMatrix(SM, SN, 'float64', 6);
      const file = join(tmp, `qr-${SM}x${SN}.npy`);
      writeFileSync(file, writeNpy(a));
      for (const own of info.lapack ? [false, true] : [true]) {
        setLapack(!own);
        const impl = own ? 'gpuflow native-cpu (own Householder, GPUFLOW_LAPACK=0)' : `gpuflow native-cpu (dgeqrf + dorgqr from ${info.lapack})`;
        log({ op: 'qr', impl, dtype: 'float64', shape: [SM, SN], threads, seconds: await best(() => cpu.qr!(a), own ? 1 : reps) });
      }
      setLapack(true);
      spec.qr.push({ file, reps });
    }
    const text = execFileSync('python3', ['bench/native/cpu-linalg.py', JSON.stringify(spec)], {
      encoding: 'utf8',
      env: { ...process.env, OPENBLAS_NUM_THREADS: String(threads), OMP_NUM_THREADS: String(threads) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const py = JSON.parse(text.trim().split('\n').pop()!) as { results: Row[]; [k: string]: unknown };
    for (const r of py.results) rows.push(r);
    // NumPy seconds / gpuflow seconds, per (op, dtype, shape) and gpuflow implementation.
    const key = (r: Row) => `${r.op} ${r.dtype} ${(r.shape as number[]).join('x')}`;
    const numpy = new Map(py.results.filter((r) => r.impl === 'numpy').map((r) => [key(r), r.seconds as number]));
    const ratios = rows
      .filter((r) => String(r.impl).startsWith('gpuflow') && numpy.has(key(r)))
      .map((r) => ({ what: key(r), impl: r.impl, gpuflow: r.seconds, numpy: numpy.get(key(r))!, numpyOverGpuflow: +(numpy.get(key(r))! / (r.seconds as number)).toFixed(3) }));
    for (const r of ratios) console.log(`${r.what.padEnd(26)} ${String(r.impl).padEnd(62)} ${(r.gpuflow as number).toFixed(4)} s vs numpy ${r.numpy.toFixed(4)} s: ${r.numpyOverGpuflow}x`);
    const { results: _r, ...pyInfo } = py;
    const doc = { date: new Date().toISOString(), commit: process.env.GPUFLOW_COMMIT ?? null, cpu: cpus()[0]?.model, cores: cpus().length, threads, addon: info, python: pyInfo, rows, ratios };
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, JSON.stringify(doc, null, 2) + '\n');
    console.log(`wrote ${outFile}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
