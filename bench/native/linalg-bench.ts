/**
 * Issue #4's linear-algebra targets on the GPU machine, like with like against CuPy
 * (linalg_baseline.py, run after this in the same job): run by bench/native/linalg-device.sh.
 *
 *   node .devbuild/linalg-bench.mjs --out DIR [--quick]
 *
 * In this order, in a fresh process, so that "cold" means what a worker's first call pays:
 *  1. loading the addon (its info() makes the CUDA context), then the first SVD 10000 x 1000 float64 (dlopen of cuSOLVER and
 *     cuBLAS, handle, workspace, lazy module loading);
 *  2. the linalg GPU checks against js (test/gpu/linalg-checks.ts), every SVD method, host in / out
 *     and on device-resident blocks (TSQR's tasks, the one-task qr / svd);
 *  3. SVD 10000 x 1000 float64 by every method (GPUFLOW_CUDA_SVD): first call, then best of 3,
 *     host in / out (A up, U down: 160 MB through the pinned staging pool, timed alone beside it);
 *  4. matmul 16384 x 16384 float32 and float64: device-resident (operands uploaded once, each call
 *     is cudaResidentMatmul: a pool allocation of C, cuBLAS gemm, stream sync, as cp.matmul +
 *     synchronize is), best and median of 5; and one host in / out call (cuda.matmul).
 * Writes linalg.json and linalg.md into DIR.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { NDArray } from '../../common/arrays';
import { loadNative } from '../../native/index';
import { SVD_METHODS, runLinalgChecks } from '../../test/gpu/linalg-checks';
import { createCudaBackend } from '../../worker/kernels/cuda';
import { uniformMatrix } from './matrices';

type Row = Record<string, string | number | boolean | null>;
const args = process.argv.slice(2);
const outDir = args[args.indexOf('--out') + 1] ?? 'bench/results';
const quick = args.includes('--quick');
const N = quick ? 2048 : 16384;
const [SM, SN] = quick ? [2000, 200] : [10000, 1000];
const rows: Row[] = [];
const log = (r: Row) => {
  rows.push(r);
  console.log(JSON.stringify(r));
};

async function seconds(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return (performance.now() - t) / 1000;
}

async function main() {
  mkdirSync(outDir, { recursive: true });
  const t0 = performance.now();
  const loaded = loadNative();
  const context = (performance.now() - t0) / 1000;
  if ('unavailable' in loaded) throw new Error(loaded.unavailable);
  const addon = loaded.addon;
  const info = addon.info();
  const cuda = createCudaBackend();
  if ('unavailable' in cuda) throw new Error(`cuda unavailable: ${cuda.unavailable}`);
  const machine = {
    gpu: info.device ?? null,
    driver: spawnSync('nvidia-smi', ['--query-gpu=name,driver_version', '--format=csv,noheader'], { encoding: 'utf8' }).stdout?.trim() ?? null,
    cpus: cpus().length,
    commit: process.env.GPUFLOW_COMMIT ?? null,
    date: new Date().toISOString(),
    defaultSvd: process.env.GPUFLOW_CUDA_SVD ?? 'default',
  };
  log({ kind: 'cold', impl: 'gpuflow: load the addon + CUDA context', seconds: context });
  const a = uniformMatrix(SM, SN, 'float64', 5, 1 << 20);
  log({ kind: 'svd', impl: 'gpuflow cuda default method (cold: first call in the process, host in/out)', dtype: 'float64', m: SM, n: SN, seconds: await seconds(() => cuda.svd!(a)) });

  const results = await runLinalgChecks(cuda, addon);
  const checks = { passed: results.filter((r) => !r.error).length, failed: results.filter((r) => r.error) };
  console.log(`linalg GPU checks: ${checks.passed} passed, ${checks.failed.length} failed`);
  for (const f of checks.failed) console.log(`  FAIL ${f.name}: ${f.error}`);

  // The host copies inside a host in/out SVD: A up, U down, through the same staging pool.
  const up = await seconds(async () => addon.cudaResidentFree(await addon.cudaResidentUpload(a.data as Float64Array)));
  const id = await addon.cudaResidentUpload(a.data as Float64Array);
  const back = new Float64Array(SM * SN);
  const down = await seconds(() => addon.cudaResidentDownload(id, back));
  addon.cudaResidentFree(id);
  log({ kind: 'svd', impl: 'gpuflow: its host copies alone (A up + U down, staged)', dtype: 'float64', m: SM, n: SN, seconds: up + down });
  for (const method of ['default', ...SVD_METHODS]) {
    if (method === 'default') delete process.env.GPUFLOW_CUDA_SVD;
    else process.env.GPUFLOW_CUDA_SVD = method;
    const first = await seconds(() => cuda.svd!(a));
    let best = Infinity;
    for (let i = 0; i < 3; i++) best = Math.min(best, await seconds(() => cuda.svd!(a)));
    log({ kind: 'svd', impl: `gpuflow cuda ${method} (host in/out)`, dtype: 'float64', m: SM, n: SN, seconds: best, firstCall: first });
  }
  delete process.env.GPUFLOW_CUDA_SVD;

  for (const dtype of ['float32', 'float64'] as const) {
    const x = uniformMatrix(N, N, dtype, 1, 1 << 20);
    const y = uniformMatrix(N, N, dtype, 2, 1 << 20);
    const ia = await addon.cudaResidentUpload(x.data as Float64Array);
    const ib = await addon.cudaResidentUpload(y.data as Float64Array);
    const once = async () => addon.cudaResidentFree(await addon.cudaResidentMatmul(ia, ib, null, N, N, N));
    const first = await seconds(once);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) times.push(await seconds(once));
    times.sort((p, q) => p - q);
    log({ kind: 'matmul', impl: 'gpuflow cuda (device-resident)', dtype, n: N, seconds: times[0], median: times[2], firstCall: first, tflops: (2 * N ** 3) / times[0] / 1e12 });
    addon.cudaResidentFree(ia);
    addon.cudaResidentFree(ib);
    log({ kind: 'matmul', impl: 'gpuflow cuda (host in/out)', dtype, n: N, seconds: await seconds(() => cuda.matmul!(x, y)) });
  }

  let versions: Record<string, unknown> = {};
  try {
    const text = execFileSync('python3', ['bench/native/linalg_baseline.py', JSON.stringify({ n: N, m: SM, k: SN })], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24, timeout: 240_000 });
    const got = JSON.parse(text.trim().split('\n').pop()!) as { results: Row[] } & Record<string, unknown>;
    for (const r of got.results) rows.push(r);
    versions = { ...got, results: undefined };
  } catch (e) {
    log({ kind: 'note', impl: 'cupy', error: e instanceof Error ? e.message.split('\n')[0] : String(e) });
  }
  writeFileSync(join(outDir, 'linalg.json'), JSON.stringify({ machine, native: info, checks, versions, rows }, null, 2) + '\n');
  const md = markdown(machine, checks, rows);
  writeFileSync(join(outDir, 'linalg.md'), md);
  console.log(md);
}

function markdown(machine: Record<string, unknown>, checks: { passed: number; failed: unknown[] }, all: Row[]): string {
  const lines = [
    '# Linear algebra on the GPU machine (issue #4), gpuflow vs CuPy',
    '',
    `GPU: ${machine.gpu} · driver: ${machine.driver} · commit ${machine.commit} · ${machine.date}`,
    '',
    `linalg GPU checks against js: ${checks.passed} passed, ${checks.failed.length} failed. Ratio: CuPy device-resident time / this time (> 1: gpuflow faster).`,
    '',
    '| kind | impl | dtype | size | seconds (best) | first call | ratio to CuPy device-resident |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  const key = (r: Row) => `${r.kind}|${r.dtype ?? ''}|${r.n ?? ''}|${r.m ?? ''}`;
  const base = new Map<string, number>();
  for (const r of all) if (String(r.impl).startsWith('cupy (device-resident')) base.set(key(r), Number(r.seconds));
  for (const r of all) {
    if (r.seconds === undefined) continue;
    const b = base.get(key(r));
    const ratio = b && String(r.impl).startsWith('gpuflow') ? `${(b / Number(r.seconds)).toFixed(2)}` : '';
    const first = r.firstCall === undefined ? '' : Number(r.firstCall).toFixed(3);
    lines.push(`| ${r.kind} | ${r.impl} | ${r.dtype ?? ''} | ${r.m ? `${r.m}x${r.n}` : (r.n ?? '')} | ${Number(r.seconds).toFixed(3)} | ${first} | ${ratio} |`);
  }
  return lines.join('\n') + '\n';
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
