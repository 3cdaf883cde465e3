// A/B of a warm run's fixed cost (bench/engine/warm-run.ts) between this checkout and another
// (--base: a checkout of the code before, with node_modules and native/build beside it, and this
// checkout's native/fake-cuda.ts so its fake GPU workers run dataframe ops). Each round runs every
// configuration once per checkout, the order alternating between rounds, so both see the same
// machine load; each process is a fresh warm pool (its first WARM runs left out). Per
// configuration and checkout: the median over rounds of each round's medians, and the median of
// the paired differences (this checkout minus base). Every digest must be one per configuration.
//
//   node bench/engine/warm-run-ab.mjs --base <dir> [--rounds 5] [--runs 20] [--only virtual,CPU] [--label x]
//     -> bench/results/warm-run-ab-<label>.json
import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const opt = (name, d) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : d);
const BASE = opt('base', null);
if (!BASE) throw new Error('--base <checkout of the code before> is required');
const ROUNDS = Number(opt('rounds', '5'));
const RUNS = opt('runs', '20');
const LABEL = opt('label', execSync('git rev-parse --short HEAD').toString().trim());
/** --only a,b: the configurations whose names contain one of these. */
const ONLY = opt('only', null);
const CONFIGS = [
  { name: 'groupby, 4 fake-cuda GPUs', args: ['--workers', 'fake', '--gpus', '4', '--workflow', 'groupby', '--rows', '50'] },
  { name: 'groupby, 1 fake-cuda GPU', args: ['--workers', 'fake', '--gpus', '1', '--workflow', 'groupby', '--rows', '50'] },
  { name: 'groupby, 4 virtual GPUs', args: ['--workers', 'virtual', '--gpus', '4', '--workflow', 'groupby', '--rows', '50'] },
  { name: 'groupby, 2 CPU workers (js)', args: ['--workers', 'cpu', '--gpus', '2', '--workflow', 'groupby', '--rows', '50'] },
  { name: 'seed N=800 chunks 50, 4 fake-cuda GPUs', args: ['--workers', 'fake', '--gpus', '4', '--workflow', 'seed', '--n', '800', '--chunk', '50'] },
].filter((c) => ONLY === null || ONLY.split(',').some((o) => c.name.includes(o)));
const SIDES = { base: path.resolve(BASE), head: path.resolve('.') };

function once(root, config) {
  const out = execFileSync('npx', ['tsx', 'bench/engine/warm-run.ts', '--root', root, '--runs', RUNS, ...config.args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
  const line = out.split('\n').find((l) => l.startsWith('{"bench":"engine/warm-run"'));
  if (!line) throw new Error(`no result from ${root} ${config.name}`);
  return JSON.parse(line);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const results = CONFIGS.map(() => ({ base: [], head: [] }));
const loads = [];
for (let r = 0; r < ROUNDS; r++) {
  for (const [i, config] of CONFIGS.entries()) {
    const order = (r + i) % 2 === 0 ? ['base', 'head'] : ['head', 'base'];
    for (const side of order) results[i][side].push(once(SIDES[side], config));
  }
  loads.push(loadavg()[0]);
  process.stderr.write(`round ${r + 1}/${ROUNDS} done (load ${loadavg()[0].toFixed(1)})\n`);
}
const keys = Object.keys(results[0].base[0].medians);
const summary = CONFIGS.map((config, i) => {
  const { base, head } = results[i];
  const digests = [...new Set([...base, ...head].flatMap((x) => x.digests))];
  const per = (side) => Object.fromEntries(keys.map((k) => [k, +median(side.map((x) => x.medians[k])).toFixed(2)]));
  const paired = Object.fromEntries(keys.map((k) => [k, +median(head.map((x, j) => x.medians[k] - base[j].medians[k])).toFixed(2)]));
  return { config: config.name, args: config.args, digests, oneDigest: digests.length === 1, base: per(base), head: per(head), pairedHeadMinusBase: paired };
});
const out = {
  bench: 'engine/warm-run-ab',
  head: execSync('git rev-parse --short HEAD').toString().trim(),
  base: SIDES.base,
  machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavgPerRound: loads.map((x) => +x.toFixed(2)) },
  rounds: ROUNDS,
  runsPerProcess: Number(RUNS),
  summary,
};
mkdirSync('bench/results', { recursive: true });
writeFileSync(`bench/results/warm-run-ab-${LABEL}.json`, JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
