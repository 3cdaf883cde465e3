/**
 * The svd node's TSQR task by task (qr-block, qr-top, qr-combine; the same specs the workers run)
 * on a worker's backends: js alone, then native-cpu (LAPACK / C++ on all cores) ahead of js, or
 * with --backend cuda the cuda backend (cuSOLVER / cuBLAS, on the GPU machine) ahead of js, in
 * the same process, on the same float64 array. Reports seconds per stage kind, the whole, the
 * ratio js / native, and the largest difference of S, U and V^T between the two (rounding only:
 * both make diag(R) >= 0).
 *
 *   npx tsx bench/arrays/tsqr-backends.ts [--rows 10000] [--cols 1000] [--blocks 10] [--reps 2] [--backend native-cpu|cuda] [--out file.json]
 *
 * Writes bench/results/tsqr-backends-<host>.json unless --out is given.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChunkValue } from '../../common/arrays';
import type { WorkerConfig } from '../../common/messages';
import { compileWorkflow } from '../../main/engine/compile/compile';
import { validateWorkflow } from '../../main/engine/validate';
import { executeSpec } from '../../worker/execute';
import type { ArrayBackend } from '../../worker/kernels/backend';
import { createJsBackend } from '../../worker/kernels/js';
import { createCudaBackend } from '../../worker/kernels/cuda';
import { createNativeCpuBackend } from '../../worker/kernels/native-cpu';
import { registerAreaHandlers } from '../../worker/register';

const args = process.argv.slice(2);
const opt = (name: string, d: number) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : d);
const rows = opt('rows', 10_000);
const cols = opt('cols', 1_000);
const blocks = opt('blocks', 10);
const reps = opt('reps', 2);
const here = dirname(fileURLToPath(import.meta.url));
const outPath = args.includes('--out') ? args[args.indexOf('--out') + 1] : join(here, `../results/tsqr-backends-${hostname()}.json`);
const threads = availableParallelism();
const backendName = args.includes('--backend') ? args[args.indexOf('--backend') + 1] : 'native-cpu';

const doc = {
  format: 'gpuflow.workflow/1',
  nodes: [
    { id: 'a', op: 'random_normal', params: { shape: [rows, cols], chunks: [Math.ceil(rows / blocks), cols], seed: 7 } },
    { id: 'd', op: 'svd', params: {} },
  ],
  edges: [{ source: 'a', sourcePort: 'out', target: 'd', targetPort: 'x' }],
};

/** Runs every task in dependency order (the graph is acyclic and compiled in order), timing the TSQR stages. */
async function runAll(backends: ArrayBackend[]) {
  const compiled = compileWorkflow(validateWorkflow(doc, {}), { wholeArrayLimit: Infinity });
  const config: WorkerConfig = { id: 'bench', kind: 'cpu', label: 'bench', threads, concurrency: 1, memoryLimit: 2 ** 34, peerToken: 'x'.repeat(16), backends: backends.map((b) => b.name), heartbeatMs: 1000 };
  const ctx = { config, backends, report: () => undefined };
  const values = new Map<string, ChunkValue>();
  const stages: Record<string, number> = {};
  const ran = new Set<string>();
  let total = 0;
  for (const [key, t] of compiled.tasks) {
    const inputs = t.deps.map((d) => {
      const v = values.get(d);
      if (!v) throw new Error(`task ${key} needs ${d}, not computed yet`);
      return v;
    });
    const t0 = performance.now();
    const r = await executeSpec(t.spec, inputs, ctx);
    const s = (performance.now() - t0) / 1000;
    values.set(key, r.value);
    const stage = t.spec.kind === 'array-op' && t.spec.op.startsWith('qr-') ? t.spec.op : 'generate and other';
    stages[stage] = (stages[stage] ?? 0) + s;
    if (stage !== 'generate and other') {
      total += s;
      ran.add(`${stage}:${r.backend}`);
    }
  }
  const out = (name: string) => {
    const o = compiled.outputs[name];
    if (o.kind !== 'array') throw new Error(`${name} is not a whole array output`);
    return o.keys.flatMap((k) => {
      const v = values.get(k);
      if (v?.kind !== 'array') throw new Error(`${k} is not an array`);
      return Array.from(v.array.data as Float64Array);
    });
  };
  return { tsqrSeconds: total, stages, ran: [...ran].sort(), s: out('d.s'), u: out('d.u'), vt: out('d.vt') };
}

const maxDiff = (a: number[], b: number[]) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const round = (x: number) => Number(x.toPrecision(4));

async function main(): Promise<void> {
  await registerAreaHandlers();
  if (backendName !== 'native-cpu' && backendName !== 'cuda') throw new Error(`--backend: native-cpu or cuda, got '${backendName}'`);
  const native = backendName === 'cuda' ? createCudaBackend() : createNativeCpuBackend(threads);
  if ('unavailable' in native) throw new Error(`${backendName}: ${native.unavailable}`);
  const js = createJsBackend();
  const runs: Record<string, Awaited<ReturnType<typeof runAll>>[]> = { js: [], native: [] };
  // Alternating, so drift on a shared machine falls on both.
  for (let r = 0; r < reps; r++) {
    runs.js.push(await runAll([js]));
    runs.native.push(await runAll([native, js]));
    console.log(JSON.stringify({ rep: r, js: round(runs.js[r].tsqrSeconds), native: round(runs.native[r].tsqrSeconds) }));
  }
  const best = (k: string) => runs[k].reduce((a, b) => (b.tsqrSeconds < a.tsqrSeconds ? b : a));
  const j = best('js');
  const n = best('native');
  const result = {
    what: `svd node TSQR, float64 ${rows} x ${cols} in ${blocks} row blocks, best of ${reps}, js against ${backendName}`,
    machine: { host: hostname(), cpu: cpus()[0]?.model, threads },
    commit: process.env.GPUFLOW_COMMIT ?? null,
    js: { seconds: round(j.tsqrSeconds), stages: Object.fromEntries(Object.entries(j.stages).map(([k, v]) => [k, round(v)])), ran: j.ran },
    native: { seconds: round(n.tsqrSeconds), stages: Object.fromEntries(Object.entries(n.stages).map(([k, v]) => [k, round(v)])), ran: n.ran },
    backend: backendName,
    ratioJsOverNative: round(j.tsqrSeconds / n.tsqrSeconds),
    maxAbsDiff: { s: maxDiff(j.s, n.s), u: maxDiff(j.u, n.u), vt: maxDiff(j.vt, n.vt) },
  };
  console.log(JSON.stringify(result, null, 2));
  mkdirSync(dirname(outPath), { recursive: true });
  writeFileSync(outPath, `${JSON.stringify(result, null, 2)}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
