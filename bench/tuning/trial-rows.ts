// A search trial's rows on one worker, A/B against an earlier commit (issue 26: every worker
// builds them before its first trial): the rows as the search builds them (search-tasks.ts
// trialRows; at a commit without it, datasetOf then trainValidationSplit, the generator and the
// split timed apart), the scaler's fit on the training rows (fitScaler), the validation rows'
// scaled copy (scaledFeatures). Each measurement is a fresh process (a worker's first trial: cold
// pages, nothing cached), A and B alternated; each line carries SHA-256s of the rows and the
// scaler, which must be equal between A and B (the run's bits unchanged).
// The base checkout is `git archive BASE` into a temp folder beside this one's node_modules; both
// load this checkout's native build (GPUFLOW_NATIVE_DIR), so a base without the addon's row map or
// column moments runs as it ran.
// Run: node --import tsx bench/tuning/trial-rows.ts [rows=60000] [pairs=5] [base=754ad0a] > out.jsonl
// One JSON line per process, then a summary line (medians, paired B - A).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const line = (o: Record<string, unknown>) => process.stdout.write(JSON.stringify(o) + '\n');
const ms = (t0: number) => Math.round((performance.now() - t0) * 10) / 10;
const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

if (process.env.TRIAL_ROWS_CHILD) await child(process.env.TRIAL_ROWS_CHILD, Number(process.argv[2] ?? 60000));
else parent(Number(process.argv[2] ?? 60000), Number(process.argv[3] ?? 5), process.argv[4] ?? '754ad0a');

function parent(rows: number, pairs: number, base: string): void {
  const baseRoot = join(tmpdir(), `gpuflow-trial-rows-${base}`);
  if (!existsSync(join(baseRoot, 'package.json'))) {
    mkdirSync(baseRoot, { recursive: true });
    const tar = execFileSync('git', ['-C', here, 'archive', base, 'package.json', 'tsconfig.json', 'tsconfig.base.json', 'tsconfig.node.json', 'common', 'worker', 'native'], { maxBuffer: 1 << 30 });
    execFileSync('tar', ['-x', '-C', baseRoot], { input: tar });
    symlinkSync(join(here, 'node_modules'), join(baseRoot, 'node_modules'));
  }
  const head = execFileSync('git', ['-C', here, 'rev-parse', '--short', 'HEAD']).toString().trim();
  const sides = { A: baseRoot, B: here };
  const got: Record<'A' | 'B', Record<string, number | string>[]> = { A: [], B: [] };
  for (let p = 0; p < pairs; p++) {
    // A B, then B A: neither side always goes first.
    for (const side of (p % 2 ? ['B', 'A'] : ['A', 'B']) as ('A' | 'B')[]) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), String(rows)], {
        env: { ...process.env, TRIAL_ROWS_CHILD: sides[side], GPUFLOW_NATIVE_DIR: join(here, 'native', 'build') },
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      });
      if (r.status !== 0) throw new Error(`side ${side} failed: ${r.stderr}`);
      const o = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Record<string, number | string>;
      got[side].push(o);
      line({ side, commit: side === 'A' ? base : `${head}+`, pair: p, ...o });
    }
  }
  const keys = ['rowsMs', 'fitMs', 'scaleValidationMs', 'totalMs', 'cpuMs'];
  const sameBits = got.A.every((a, i) => ['trainX', 'validationX', 'trainY', 'scaler'].every((k) => a[k] === got.B[i][k] && a[k] === got.A[0][k]));
  const summary: Record<string, unknown> = { bench: 'tuning-trial-rows', rows, pairs, base, head, sameBits, loadAfter: Math.round(loadavg()[0] * 100) / 100 };
  for (const k of keys) {
    const a = got.A.map((o) => Number(o[k]));
    const b = got.B.map((o) => Number(o[k]));
    summary[k] = { A: median(a), B: median(b), pairedBminusA: median(b.map((v, i) => v - a[i])) };
  }
  line(summary);
}

async function child(root: string, rows: number): Promise<void> {
  const mod = (p: string) => import(pathToFileURL(join(root, p)).href);
  const tasks = await mod('worker/kernels/tfjs/search-tasks.ts');
  const split = await mod('worker/kernels/tfjs/split.ts');
  const scaling = await mod('worker/kernels/tfjs/scaling.ts');
  const spec = {
    source: { kind: 'classification', nSamples: rows, nFeatures: 784, nInformative: 64, nClasses: 10, flipY: 0.02, seed: 1 },
    split: { validationFraction: 0.2, seed: 2, stratify: true },
  };
  const load = loadavg()[0];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let data;
  const parts: Record<string, number> = {};
  if (tasks.trialRows) data = await tasks.trialRows(spec, undefined);
  else {
    const ds = await tasks.datasetOf(spec, undefined, 'bench');
    parts.generateMs = ms(t0);
    const t1 = performance.now();
    data = split.trainValidationSplit(ds, spec.split);
    parts.splitMs = ms(t1);
  }
  const rowsMs = ms(t0);
  const t2 = performance.now();
  const scaler = scaling.fitScaler(data.train);
  const fitMs = ms(t2);
  const t3 = performance.now();
  const scaled = scaling.scaledFeatures(scaler, data.validation);
  const scaleValidationMs = ms(t3);
  const totalMs = ms(t0);
  const c = process.cpuUsage(c0);
  const sha = (a: Float32Array | Float64Array) => createHash('sha256').update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength)).digest('hex').slice(0, 16);
  line({
    rowsMs, ...parts, fitMs, scaleValidationMs, totalMs,
    cpuMs: Math.round((c.user + c.system) / 1000),
    loadBefore: Math.round(load * 100) / 100,
    trainX: sha(data.train.x), trainY: sha(data.train.y), validationX: sha(data.validation.x), scaledValidationX: sha(scaled),
    scaler: sha(Float64Array.from([...scaler.xMean, ...scaler.xStd, scaler.yMean, scaler.yStd])),
  });
}
