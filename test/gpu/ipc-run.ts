/**
 * The IPC checks (ipc-checks.ts) and a timing of the same matmul at benchmark size with and
 * without IPC, on the GPU machine from a bundle (bench/scaling/ipc-device.sh builds and runs it):
 *
 *   node .devbuild/ipc-run.mjs --cli .devbuild/gpuflow/main.mjs --workflow test/gpu/ipc-matmul.json --out DIR [--bench]
 *
 * Writes one JSON line per run and per check to DIR/ipc.jsonl and prints them; exits 1 when a
 * check fails.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, runIpcChecks, IPC_WORKFLOW } from './ipc-checks';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const out = opt('--out', 'bench/results');
const cli = ['node', opt('--cli', '.devbuild/gpuflow/main.mjs')];
const workflow = opt('--workflow', IPC_WORKFLOW);
mkdirSync(out, { recursive: true });
const log = (row: Record<string, unknown>) => {
  const line = JSON.stringify({ commit: process.env.GPUFLOW_COMMIT ?? null, ...row });
  console.log(line);
  appendFileSync(join(out, 'ipc.jsonl'), line + '\n');
};

async function main(): Promise<number> {
  const results = await runIpcChecks({ cli, log, workflow });
  for (const r of results) log({ kind: 'check', name: r.name, error: r.error });
  const failed = results.filter((r) => r.error !== null);
  console.log(`IPC checks: ${results.length - failed.length} passed, ${failed.length} failed`);
  if (args.includes('--bench')) {
    // matmul 16384² float32 in 4096² blocks, 2 workers on GPU 0: IPC vs the host path.
    for (const ipc of ['1', '0'])
      for (let rep = 1; rep <= 2; rep++) {
        const r = await runCli(cli, [workflow, '--param', 'N=16384', '--param', 'chunks=4096', '--param', 'dtype=float32', '--backend', 'cuda', '--cpu-workers', '0'], { GPUFLOW_DEVICES: '0', GPUFLOW_GPU_WORKERS_PER_DEVICE: '2', GPUFLOW_IPC: ipc }, 300_000);
        log({ kind: 'bench', workload: 'matmul-16384-f32-2-workers-gpu0', ipc: ipc === '1', rep, rc: r.rc, status: r.status, seconds: r.seconds, durationMs: r.stats?.durationMs, transfers: r.stats?.transfers, workers: r.stats?.workers.map((w) => [w.id, w.tasks, w.busyMs]), error: r.error });
      }
  }
  return failed.length ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(1);
});
