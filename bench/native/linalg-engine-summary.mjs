// Sums up the engine runs of bench/native/linalg-device.sh ($OUT/linalg-engine.jsonl) beside the
// bare kernels and CuPy ($OUT/linalg.json) and Dask + CuPy ($OUT/linalg-dask.jsonl) of the same call into $OUT/linalg-engine.json, with
// the commit, the device and issue #20's goals. Plain Node (the GPU machine has no node_modules).
//   node bench/native/linalg-engine-summary.mjs DIR
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'bench/results';
const runs = readFileSync(join(dir, 'linalg-engine.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
const bare = existsSync(join(dir, 'linalg.json')) ? JSON.parse(readFileSync(join(dir, 'linalg.json'), 'utf8')) : { machine: {}, rows: [] };
const daskPath = join(dir, 'linalg-dask.jsonl');
const dask = existsSync(daskPath) ? readFileSync(daskPath, 'utf8').trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)) : [];
const row = (pred) => bare.rows.find(pred)?.seconds ?? null;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null;
};
const goals = { 'svd-engine': 0.2, 'matmul-engine': 0.19 };
const groups = {};
for (const r of runs) (groups[`${r.workflow}|${r.mode}`] ??= []).push(r);
const summary = Object.entries(groups).map(([k, rs]) => {
  const [workflow, mode] = k.split('|');
  const ok = rs.filter((r) => r.status === 'finished');
  const run = ok.map((r) => r.durationMs / 1000);
  return {
    workflow,
    mode,
    runs: rs.length,
    finished: ok.length,
    engineRunSeconds: run,
    engineRunMedian: median(run),
    processWallMedian: median(ok.map((r) => r.processSeconds)),
    tasks: ok[0]?.stats?.tasks ?? null,
    goalSeconds: goals[workflow] ?? null,
    met: mode === 'one-device' && run.length ? median(run) <= goals[workflow] : null,
    errors: rs.filter((r) => r.status !== 'finished').map((r) => r.error ?? r.status).slice(0, 2),
  };
});
const out = {
  commit: process.env.GPUFLOW_COMMIT ?? bare.machine.commit ?? null,
  device: bare.machine.gpu ?? null,
  driver: bare.machine.driver ?? null,
  date: new Date().toISOString(),
  bare: {
    svdDefaultHostInOut: row((r) => r.kind === 'svd' && r.impl === 'gpuflow cuda default (host in/out)'),
    svdCupyDeviceResident: row((r) => r.kind === 'svd' && String(r.impl).startsWith('cupy (device-resident')),
    matmulF32DeviceResident: row((r) => r.kind === 'matmul' && r.dtype === 'float32' && r.impl === 'gpuflow cuda (device-resident)'),
    matmulF32Cupy: row((r) => r.kind === 'matmul' && r.dtype === 'float32' && String(r.impl).startsWith('cupy (device-resident')),
  },
  dask: Object.fromEntries(dask.map((d) => [d.kind, d.seconds ?? d.error ?? null])),
  summary,
  runs,
};
writeFileSync(join(dir, 'linalg-engine.json'), JSON.stringify(out, null, 2) + '\n');
for (const s of summary) console.log(`${s.workflow} ${s.mode}: engine run median ${s.engineRunMedian?.toFixed(3)} s (${s.engineRunSeconds.map((x) => x.toFixed(3)).join(', ')}), process wall ${s.processWallMedian?.toFixed(2)} s, ${s.tasks} tasks${s.met === null ? '' : `, goal ${s.goalSeconds} s ${s.met ? 'met' : 'missed'}`}`);
console.log(`bare: ${JSON.stringify(out.bare)}; dask + cupy: ${JSON.stringify(out.dask)}`);
