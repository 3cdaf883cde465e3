/**
 * GPU checks of CUDA IPC transfers through the whole engine: two GPU worker processes share GPU 0
 * (GPUFLOW_GPU_WORKERS_PER_DEVICE=2), run a blockwise matmul whose blocks must move between them
 * (test/gpu/ipc-matmul.json: C itself is the output, so every block that moves is a device
 * array), and the answer must equal the js backend's on CPU workers while the run's stats say
 * the blocks went device to device: bytes by IPC > 0, bytes through the host 0. With
 * GPUFLOW_IPC=0 the same run must move them through the host, say why, and get the same answer.
 *
 * Each run is a `gpuflow run` process (`cli`: the command that starts one), so this runs from
 * vitest (test/gpu/ipc.test.ts, with node_modules) and from a bundle on the GPU machine
 * (test/gpu/ipc-run.ts via bench/scaling/ipc-device.sh).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResultValue, RunStats } from '../../common/results';
import { checkList, maxRelDiff, type CheckResult } from './cuda-checks';

export const IPC_WORKFLOW = fileURLToPath(new URL('./ipc-matmul.json', import.meta.url));

export interface CliRun {
  rc: number;
  status?: string;
  error?: string;
  results?: Record<string, ResultValue>;
  stats?: RunStats;
  stderr: string;
  seconds: number;
}

/**
 * Runs `gpuflow run` with `args` and extra environment; parses its --json output. Its stdout goes
 * to a file: a large result written to a pipe is cut short when the CLI exits.
 */
export function runCli(cli: string[], args: string[], env: Record<string, string>, timeoutMs = 180_000): Promise<CliRun> {
  const t0 = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'gpuflow-ipc-'));
  const outFile = join(dir, 'run.json');
  const fd = openSync(outFile, 'w');
  return new Promise((resolve) => {
    const child = spawn(cli[0], [...cli.slice(1), 'run', ...args, '--json', '--no-store'], { env: { ...process.env, ...env }, stdio: ['ignore', fd, 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      closeSync(fd);
      const seconds = (performance.now() - t0) / 1000;
      const rc = code ?? 137;
      try {
        const r = JSON.parse(readFileSync(outFile, 'utf8')) as { status?: string; error?: string; results?: Record<string, ResultValue>; stats?: RunStats };
        resolve({ rc, status: r.status, error: r.error, results: r.results, stats: r.stats, stderr: stderr.slice(-2000), seconds });
      } catch {
        resolve({ rc, error: `no JSON on stdout (rc ${rc})`, stderr: stderr.slice(-2000), seconds });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/** The numbers of an array result: its data when reported whole, else its summary and corner. */
function numbersOf(v: ResultValue | undefined): number[] | string {
  if (v?.kind !== 'array') return `expected an array result, got ${v?.kind}`;
  if (v.data) return v.data;
  if (!v.summary) return 'the array result has neither data nor a summary';
  return [v.summary.min, v.summary.max, v.summary.mean, ...v.summary.corner.data];
}

function sameAnswer(got: CliRun, want: CliRun, rel: number): string | null {
  const g = numbersOf(got.results?.c);
  const w = numbersOf(want.results?.c);
  if (typeof g === 'string') return `gpu run: ${g}`;
  if (typeof w === 'string') return `js run: ${w}`;
  if (g.length !== w.length) return `${g.length} numbers, js ${w.length}`;
  const d = maxRelDiff(g, w);
  return d <= rel ? null : `differs from js by ${d.toExponential(2)} (relative), allowed ${rel}`;
}

function failed(r: CliRun): string | null {
  return r.rc === 0 && r.status === 'finished' ? null : `run ${r.status ?? 'did not finish'} (rc ${r.rc}): ${r.error ?? ''} ${r.stderr.slice(-600)}`;
}

export interface IpcCheckOptions {
  /** The command that starts gpuflow, e.g. ['node', '.devbuild/gpuflow/main.mjs']. */
  cli: string[];
  /** Each run's stats and timings, for the bench record. */
  log?: (row: Record<string, unknown>) => void;
  /** The workflow file (default: ipc-matmul.json beside this file; a bundle names it). */
  workflow?: string;
  N?: number;
  chunks?: number;
}

export async function runIpcChecks(opts: IpcCheckOptions): Promise<CheckResult[]> {
  const { results, check } = checkList();
  // 960² in 240² blocks: 4 x 4 blocks, and C (921 600 elements) comes back whole, not summarised
  // by tasks whose partials would move through the host.
  const N = opts.N ?? 960;
  const chunks = opts.chunks ?? 240;
  const log = opts.log ?? (() => undefined);
  const wf = opts.workflow ?? IPC_WORKFLOW;
  const params = (dtype: string) => ['--param', `N=${N}`, '--param', `chunks=${chunks}`, '--param', `dtype=${dtype}`];
  const twoOnGpu0 = { GPUFLOW_DEVICES: '0', GPUFLOW_GPU_WORKERS_PER_DEVICE: '2' };
  const record = (label: string, r: CliRun) => {
    log({ kind: 'ipc-check', label, rc: r.rc, status: r.status, seconds: r.seconds, durationMs: r.stats?.durationMs, transfers: r.stats?.transfers, workers: r.stats?.workers.map((w) => [w.id, w.tasks, w.backends]), device: r.stats?.device, error: r.error });
    return r;
  };

  for (const [dtype, rel] of [['float64', 1e-9], ['float32', 1e-4]] as const) {
    // The oracle: the js backend on two CPU workers (host transfers only).
    const js = record(`js ${dtype}`, await runCli(opts.cli, [wf, ...params(dtype), '--no-gpus', '--cpu-workers', '2', '--backend', 'js'], { GPUFLOW_DEVICES: '' }));
    await check(`ipc: matmul ${dtype}, 2 GPU workers on GPU 0, blocks device to device`, async () => {
      const bad = failed(js);
      if (bad) return `js reference: ${bad}`;
      const r = record(`ipc ${dtype}`, await runCli(opts.cli, [wf, ...params(dtype), '--backend', 'cuda', '--cpu-workers', '0'], twoOnGpu0));
      const f = failed(r);
      if (f) return f;
      const t = r.stats!.transfers;
      const ran = r.stats!.workers.filter((w) => w.tasks > 0).map((w) => w.id);
      if (ran.length !== 2) return `tasks ran on ${ran.join(', ') || 'no worker'}, want both GPU workers`;
      if (!t.ipc || t.ipc.bytes <= 0) return `no bytes moved by IPC: ${JSON.stringify(t)}`;
      if (!t.host || t.host.bytes !== 0) return `${t.host?.bytes ?? '?'} bytes went through the host: ${JSON.stringify(t.hostReasons)}`;
      return sameAnswer(r, js, rel);
    });
    await check(`ipc: matmul ${dtype} with GPUFLOW_IPC=0 goes through the host, says why, same answer`, async () => {
      const bad = failed(js);
      if (bad) return `js reference: ${bad}`;
      const r = record(`host ${dtype}`, await runCli(opts.cli, [wf, ...params(dtype), '--backend', 'cuda', '--cpu-workers', '0'], { ...twoOnGpu0, GPUFLOW_IPC: '0' }));
      const f = failed(r);
      if (f) return f;
      const t = r.stats!.transfers;
      if (t.ipc?.bytes !== 0 || !t.host || t.host.bytes <= 0) return `want host transfers only: ${JSON.stringify(t)}`;
      if (!Object.keys(t.hostReasons ?? {}).some((k) => k.includes('GPUFLOW_IPC=0'))) return `no reason naming GPUFLOW_IPC=0: ${JSON.stringify(t.hostReasons)}`;
      return sameAnswer(r, js, rel);
    });
  }
  return results;
}
