// Turns what bench/engine-gpu/device.sh left in $OUT (native-gpu-seed.json, engine.jsonl,
// dask.jsonl, machine.txt) into bench/results/engine-gpu-<gpu>-<commit>.{json,md}.
//   node bench/engine-gpu/summarize.mjs DIR
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const seed = JSON.parse(readFileSync(join(dir, 'native-gpu-seed.json'), 'utf8'));
const lines = (f) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)) : []);
const engine = lines('engine.jsonl');
const dask = lines('dask.jsonl');
// bench/native/fused_limit.py: the issue's fused limit, rebuilt in the same call.
const limits = lines('fused-limit.jsonl');
// warm-runs.ts: the best of the runs after the first in one engine; linger A/B.
const warm = lines('warm.jsonl');
const lingerAb = lines('engine-ab.jsonl').filter((r) => r.kind === 'linger-ab');
const v8Ab = lines('engine-ab.jsonl').filter((r) => r.kind === 'v8-ab');
const warmOf = (dtype, mode) => {
  const w = warm.filter((r) => !r.first && r.dtype === dtype && r.workflow.includes(mode === 'sliced' ? 'seed-benchmark' : 'seed-full'));
  return w.length ? Math.min(...w.map((r) => r.engineSeconds ?? r.seconds)) : null;
};
const machineTxt = existsSync(join(dir, 'machine.txt')) ? readFileSync(join(dir, 'machine.txt'), 'utf8').trim() : '';
const gpu = /H100/.test(seed.machine.gpu ?? '') ? 'h100' : /H200/.test(seed.machine.gpu ?? '') ? 'h200' : 'gpu';
const commit = seed.machine.commit ?? 'unknown';
const rows = seed.rows;
const find = (impl, dtype, n, mode) => rows.find((r) => r.kind === 'seed' && r.impl === impl && r.dtype === dtype && r.n === n && r.mode === mode);
const best = (dtype, n, mode) => {
  const e = engine.filter((r) => r.dtype === dtype && r.n === n && r.workflow.includes(mode === 'sliced' ? 'seed-benchmark' : 'seed-full') && r.stats);
  return e.length ? e.reduce((a, b) => (a.stats.durationMs <= b.stats.durationMs ? a : b)) : null;
};
const table = [];
for (const mode of ['sliced', 'full'])
  for (const dtype of ['float64', 'float32'])
    for (const n of [100000, 500000]) {
      const e = best(dtype, n, mode);
      const loop4 = find('gpuflow cuda (4 in flight)', dtype, n, mode);
      const loop1 = find('gpuflow cuda (1 in flight)', dtype, n, mode);
      const loop16 = find('gpuflow cuda (16 in flight)', dtype, n, mode);
      const kern = find('gpuflow cuda kernel only (events, x chunks)', dtype, n, mode);
      const gen = find('gpuflow cuda general interpreter, kernel only (events, x chunks)', dtype, n, mode);
      const cupy = find('cupy', dtype, n, mode);
      const dk = dask.find((r) => r.dtype === dtype && r.n === n && r.mode === mode && r.seconds);
      table.push({
        mode, dtype, n,
        engineSeconds: e ? e.stats.durationMs / 1000 : null,
        engineProcessSeconds: e ? e.processSeconds : null,
        engineTasks: e ? e.stats.tasks : null,
        engineValue: e ? e.value : null,
        bareLoop4: loop4?.seconds ?? null,
        bareLoop1: loop1?.seconds ?? null,
        bareLoop16: loop16?.seconds ?? null,
        kernelOnly: kern?.seconds ?? null,
        generalKernelOnly: gen?.seconds ?? null,
        cupy: cupy?.seconds ?? null,
        daskCupy: dk?.seconds ?? null,
        // The engine keeps 16 tasks in flight on a GPU worker: its like is the 16-in-flight loop.
        engineOverBareLoop: e && (loop16 ?? loop4) ? e.stats.durationMs / 1000 / (loop16 ?? loop4).seconds - 1 : null,
      });
    }
// Issue 20's goals for the 2 TB rows (engine run, seconds) and the fused limits they rest on.
const GOALS = { 'full float64': 1.5, 'full float32': 0.7, 'sliced float64': 0.72, 'sliced float32': 0.4 };
const limitOf = (v) => limits.find((r) => r.variant === v)?.seconds ?? null;
const goals = table.filter((r) => r.n === 500000).map((r) => {
  const goal = GOALS[`${r.mode} ${r.dtype}`];
  const wallAbove = r.engineProcessSeconds !== null && r.engineSeconds !== null ? r.engineProcessSeconds - r.engineSeconds : null;
  const w = warmOf(r.dtype, r.mode);
  const loop = r.bareLoop16 ?? r.bareLoop4;
  return { mode: r.mode, dtype: r.dtype, goal, engine: r.engineSeconds, warm: w, warmOverBareLoop: w !== null && loop ? w / loop - 1 : null, met: r.engineSeconds !== null && r.engineSeconds <= goal, overBareLoop: r.engineOverBareLoop, overheadMet: r.engineOverBareLoop !== null && r.engineOverBareLoop <= 0.05, processWallAboveEngine: wallAbove, wallMet: wallAbove !== null && wallAbove <= 0.5 };
});
const kernelVsLimit = ['float32', 'float64'].map((dtype) => {
  const k = table.find((r) => r.n === 500000 && r.mode === 'full' && r.dtype === dtype);
  const precise = limitOf(dtype === 'float32' ? 'f32_precise' : 'f64_precise');
  const fast = dtype === 'float32' ? limitOf('f32_fast') : null;
  const ours = k?.bareLoop16 ?? k?.kernelOnly ?? null;
  return { dtype, ours, fusedPrecise: precise, fusedFast: fast, ofPrecise: ours && precise ? precise / ours : null, ofFast: ours && fast ? fast / ours : null };
});
const out = { machine: seed.machine, machineTxt, native: seed.native, checks: seed.checks, table, goals, kernelVsLimit, limits, warm, lingerAb, v8Ab, engine, dask, seedRows: rows };
const base = `engine-gpu-${gpu}-${commit}`;
writeFileSync(join('bench/results', `${base}.json`), JSON.stringify(out, null, 2) + '\n');
const f = (x, d = 3) => (x === null || x === undefined ? '' : Number(x).toFixed(d));
const md = [
  `# gpuflow engine on the GPU machine: seed workload, one GPU worker (backend cuda)`,
  '',
  `GPU: ${seed.machine.gpu} · driver: ${seed.machine.driver} · CPUs: ${seed.machine.cpus} · commit ${commit} · ${seed.machine.date}`,
  '',
  `GPU checks (every CUDA op vs js, specialised kernel included): ${seed.checks.passed} passed, ${seed.checks.failed.length} failed.`,
  '',
  'Seconds. engine = `gpuflow run` from the product bundles, a fresh process each (stats.durationMs, from run start after the workers are ready, best of 2; process wall in the JSON with the start-up trace); bare loop = one addon call per chunk, 16 in flight as the engine keeps on a GPU worker (1 in flight in brackets); kernel = events around back-to-back launches x chunks (specialised kernel; general interpreter beside it); CuPy loop and Dask + CuPy use CuPy\'s default generator.',
  '',
  '| workload | dtype | N | engine | bare loop 16 (1) | engine over bare loop 16 | kernel only | general kernel | CuPy loop | Dask + CuPy |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...table.map((r) => `| ${r.mode === 'sliced' ? '(x + 1)[::2, ::2].sum()' : '(x + 1).sum()'} | ${r.dtype} | ${r.n} | ${f(r.engineSeconds)} | ${f(r.bareLoop16 ?? r.bareLoop4)} (${f(r.bareLoop1)}) | ${r.engineOverBareLoop === null ? '' : `${(100 * r.engineOverBareLoop).toFixed(1)} %`} | ${f(r.kernelOnly)} | ${f(r.generalKernelOnly)} | ${f(r.cupy)} | ${f(r.daskCupy)} |`),
  '',
  '## Issue 20 goals (2 TB rows)',
  '',
  '| seed | goal (engine) | engine (cold: fresh process) | met | cold over bare loop 16 (goal 5 %) | warm (later run, same engine) | warm over bare loop 16 | process wall above the engine run (goal 0.5 s) |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ...goals.map((g) => `| ${g.mode} ${g.dtype} | ${g.goal} | ${f(g.engine)} | ${g.met ? 'yes' : 'no'} | ${g.overBareLoop === null ? '' : `${(100 * g.overBareLoop).toFixed(1)} % (${g.overheadMet ? 'met' : 'missed'})`} | ${f(g.warm)} | ${g.warmOverBareLoop === null ? '' : `${(100 * g.warmOverBareLoop).toFixed(1)} %`} | ${f(g.processWallAboveEngine)} (${g.wallMet ? 'met' : 'missed'}) |`),
  '',
  lingerAb.length ? `Batch linger A/B (GPUFLOW_BATCH_LINGER_MS, sliced, fresh processes): ${['float64', 'float32'].map((dt) => [0, 1].map((l) => { const v = lingerAb.filter((r) => r.dtype === dt && r.lingerMs === l).map((r) => r.durationMs); return `${dt} ${l} ms: ${v.join(' / ')} ms`; }).join(', ')).join('; ')}.` : '',
  '',
  'Our kernel (bare loop, 16 in flight, every sample) against the fused limit rebuilt in the same call (bench/native/fused_limit.py: one launch, our Philox and uniforms; precise = the transcendentals our contract allows, fast = hardware approximations):',
  '',
  '| dtype | ours | fused, precise | fused, fast | ours at % of precise | ours at % of fast (goal 85 %) |',
  '| --- | --- | --- | --- | --- | --- |',
  ...kernelVsLimit.map((k) => `| ${k.dtype} | ${f(k.ours)} | ${f(k.fusedPrecise)} | ${f(k.fusedFast)} | ${k.ofPrecise ? (100 * k.ofPrecise).toFixed(0) + ' %' : ''} | ${k.ofFast ? (100 * k.ofFast).toFixed(0) + ' %' : ''} |`),
  '',
  v8Ab.length ? `Worker V8 flags A/B (GPUFLOW_WORKER_V8_FLAGS, sliced, fresh processes, engine run ms): ${[...new Set(v8Ab.map((r) => r.flags))].map((fl) => `${fl}: ${['float64', 'float32'].map((dt) => `${dt} ${v8Ab.filter((r) => r.flags === fl && r.dtype === dt).map((r) => r.durationMs).join(' / ')}`).join(', ')}`).join('; ')}.` : '',
  '',
  dask.some((r) => r.error) ? `Dask notes: ${dask.filter((r) => r.error).map((r) => r.error).join('; ')}` : '',
  '',
].join('\n');
writeFileSync(join('bench/results', `${base}.md`), md);
console.log(md);
