/**
 * A workflow run again and again in one engine (one GPU worker, cuda backend, no CPU worker):
 * the first run pays the worker's first CUDA calls (module loading, pools), the later ones are
 * what a person pressing Run again sees, and what the engine's scheduling cost is measured on
 * (against bench/native/seed-kernel.ts --loop, the bare addon-call loop over the same chunks).
 *
 *   GPUFLOW_WORKER_ENTRY=.devbuild/gpuflow/worker.js node .devbuild/warm-runs.mjs \
 *     --workflow examples/seed-benchmark.json --param N=500000 --param chunks=10000 [--reps 4]
 */
import { readFileSync } from 'node:fs';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const params: Record<string, number | string> = {};
args.forEach((a, i) => {
  if (a !== '--param') return;
  const [k, v] = args[i + 1].split('=');
  params[k] = Number.isFinite(Number(v)) ? Number(v) : v;
});
const reps = Number(opt('reps') ?? 4);

async function main(): Promise<void> {
  const wfPath = opt('workflow') ?? 'examples/seed-benchmark.json';
  const wf = validateWorkflow(JSON.parse(readFileSync(wfPath, 'utf8')), params);
  const engine = new Engine(await discover(), { launcher: forkLauncher(), useGpus: true, maxGpus: 1, cpuWorkers: 0, virtualGpus: 0, backends: ['cuda', 'js'] });
  await engine.start();
  try {
    for (let r = 0; r <= reps; r++) {
      const compiled = await engine.compileAsync(wf);
      const t0 = performance.now();
      const res = await engine.run(wf, undefined, { compiled }).result;
      const ms = performance.now() - t0;
      if (res.status !== 'finished') throw new Error(`run ${res.status}: ${res.error}`);
      console.log(JSON.stringify({ workflow: wfPath, params, first: r === 0, seconds: +(ms / 1000).toFixed(3), engineSeconds: res.stats.durationMs / 1000, tasks: res.stats.tasks }));
    }
  } finally {
    await engine.shutdown();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
