/**
 * Speed of the js reference linear-algebra kernels on one core: matmul GFLOP/s at a few sizes and
 * dtypes, QR and the small SVD of a 1000 x 1000, a rank-20 randomized SVD of a 2000 x 2000, and the TSQR SVD of a 10000 x 1000 float64 array
 * (10 blocks) stage by stage. Wall and CPU seconds are both recorded, with the load average: on a
 * shared machine the CPU seconds are the better estimate of an idle core.
 *
 *   npx tsx bench/arrays/linalg.ts [out.json] [--quick]
 *
 * Writes JSON to bench/results/linalg-js.json unless a path is given. --quick skips the 10000 x 1000.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NDArray } from '../../common/arrays';
import { matmul } from '../../worker/kernels/js/linalg/matmul';
import { qr } from '../../worker/kernels/js/linalg/qr';
import { gaussianTestMatrix, randomizedSvd } from '../../worker/kernels/js/linalg/randomized';
import { transpose as transposeArray } from '../../worker/kernels/js/linalg/transpose';
import { svd } from '../../worker/kernels/js/linalg/svd';
import { rowBlocks, svdOfR } from '../../worker/kernels/js/linalg/svd-tall';
import { combineFactor, qrBlock, qrBlockFactor, splitRows, stackR } from '../../worker/kernels/js/linalg/tsqr';

interface Timing {
  wallSeconds: number;
  cpuSeconds: number;
}

function time<T>(f: () => T): { value: T } & Timing {
  const w = performance.now();
  const c = process.cpuUsage();
  const value = f();
  const cpu = process.cpuUsage(c);
  return { value, wallSeconds: (performance.now() - w) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

function round(x: number, digits = 3): number {
  return Number(x.toFixed(digits));
}

function asFloat32(a: NDArray): NDArray {
  return { dtype: 'float32', shape: a.shape, data: Float32Array.from(a.data as Float64Array) };
}

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const here = dirname(fileURLToPath(import.meta.url));
const outPath = args.find((a) => !a.startsWith('--')) ?? join(here, '../results/linalg-js.json');

// V8 runs a function's first calls unoptimised: warm every kernel up on small inputs first.
for (let i = 0; i < 5; i++) {
  const w = gaussianTestMatrix(96, 64, i);
  matmul(w, transposeArray(w));
  svd(w);
  combineFactor(qrBlockFactor(w).factor, gaussianTestMatrix(64, 8, i));
}

const matmulResults = [];
for (const [n, dtype] of [[256, 'float64'], [512, 'float64'], [1000, 'float64'], [1000, 'float32']] as const) {
  let a = gaussianTestMatrix(n, n, 1);
  let b = gaussianTestMatrix(n, n, 2);
  if (dtype === 'float32') {
    a = asFloat32(a);
    b = asFloat32(b);
  }
  const t = time(() => matmul(a, b));
  const flops = 2 * n ** 3;
  matmulResults.push({
    n, dtype,
    wallSeconds: round(t.wallSeconds), cpuSeconds: round(t.cpuSeconds),
    gflopsWall: round(flops / t.wallSeconds / 1e9, 2), gflopsCpu: round(flops / t.cpuSeconds / 1e9, 2),
  });
  console.log(JSON.stringify(matmulResults[matmulResults.length - 1]));
}

const square = gaussianTestMatrix(1000, 1000, 3);
const qrT = time(() => qr(square));
const svdT = time(() => svd(square));
const big = gaussianTestMatrix(2000, 2000, 4);
const rsvdT = time(() => randomizedSvd(big, { rank: 20, seed: 1 }));
const small = {
  qr1000: { wallSeconds: round(qrT.wallSeconds), cpuSeconds: round(qrT.cpuSeconds) },
  svd1000: { wallSeconds: round(svdT.wallSeconds), cpuSeconds: round(svdT.cpuSeconds) },
  randomizedSvd2000Rank20: { wallSeconds: round(rsvdT.wallSeconds), cpuSeconds: round(rsvdT.cpuSeconds), oversample: 10, powerIters: 2 },
};
console.log(JSON.stringify(small));

let tsqrSvd: Record<string, unknown> | null = null;
if (!quick) {
  const m = 10_000;
  const n = 1_000;
  const blocks = rowBlocks(gaussianTestMatrix(m, n, 2024), 10);
  const stages: Record<string, Timing> = {};
  const stage = <T>(name: string, f: () => T): T => {
    const t = time(f);
    stages[name] = { wallSeconds: round(t.wallSeconds), cpuSeconds: round(t.cpuSeconds) };
    console.log(name, JSON.stringify(stages[name]));
    return t.value;
  };
  const first = stage('qrBlocks', () => blocks.map(qrBlockFactor));
  const second = stage('stackedQr', () => qrBlock(stackR(first.map((f) => f.r))));
  const sv = stage('svdOfR', () => svdOfR(second.r));
  stage('combineQ', () => {
    const q2 = splitRows(second.q, blocks.map(() => n));
    return first.map((f, i) => combineFactor(f.factor, q2[i], sv.u));
  });
  const total = Object.values(stages).reduce((acc, s) => ({ wallSeconds: acc.wallSeconds + s.wallSeconds, cpuSeconds: acc.cpuSeconds + s.cpuSeconds }), { wallSeconds: 0, cpuSeconds: 0 });
  tsqrSvd = { rows: m, cols: n, blocks: 10, stages, wallSeconds: round(total.wallSeconds), cpuSeconds: round(total.cpuSeconds) };
}

const result = {
  bench: 'linalg-js',
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadAverage1m: round(loadavg()[0], 2), node: process.version },
  matmul: matmulResults,
  ...small,
  tsqrSvd10000x1000: tsqrSvd,
};
mkdirSync(dirname(outPath), { recursive: true });
writeFileSync(outPath, `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote ${outPath}`);
