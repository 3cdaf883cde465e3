/**
 * The IPC checks (ipc-checks.ts) and a timing of the same matmul at benchmark size with and
 * without IPC, on the GPU machine from a bundle (bench/scaling/ipc-device.sh builds and runs it):
 *
 *   node .devbuild/ipc-run.mjs --cli .devbuild/gpuflow/main.mjs --workflow test/gpu/ipc-matmul.json --out DIR [--bench]
 *
 * First the addon alone, two processes: this one imports what a child (this file again, with
 * --export-child) uploaded and exported, at 8 MiB and 512 MiB (the latter timed), so a failure of
 * the native path shows apart from the engine's. Writes one JSON line per run and per check to
 * DIR/ipc.jsonl and prints them; exits 1 when a check fails.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadNative, type NativeAddon } from '../../native/index';
import { runCli, runIpcChecks, IPC_WORKFLOW } from './ipc-checks';

const pattern = (i: number) => (i % 1000) * 0.5 - 7;

/** The child: uploads n float64s, exports them, prints the handle, releases when told, exits. */
async function exportChild(addon: NativeAddon, n: number): Promise<void> {
  const id = await addon.cudaResidentUpload(Float64Array.from({ length: n }, (_, i) => pattern(i)));
  const t0 = performance.now();
  const e = await addon.cudaIpcExport(id);
  const exportMs = performance.now() - t0;
  console.log(JSON.stringify({ exportId: e.exportId, handle: Buffer.from(e.handle).toString('base64'), exportMs }));
  for await (const line of createInterface({ input: process.stdin })) if (line.trim() === 'done') break;
  await addon.cudaIpcRelease(e.exportId, true);
  const stats = addon.cudaIpcStats();
  console.log(JSON.stringify({ released: true, stats }));
}

/** Imports a child's export of n float64s; null when the values and stats are right, else why. */
async function nativeCheck(addon: NativeAddon, n: number, log: (row: Record<string, unknown>) => void): Promise<string | null> {
  const child = spawn(process.execPath, [process.argv[1], '--export-child', String(n)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  try {
    const first = await lines.next();
    if (first.done) return 'the exporting child printed nothing';
    const offer = JSON.parse(first.value) as { exportId: number; handle: string; exportMs: number };
    const t0 = performance.now();
    const id = await addon.cudaIpcImport(new Uint8Array(Buffer.from(offer.handle, 'base64')), n * 8, 'float64');
    const importMs = performance.now() - t0;
    child.stdin!.write('done\n');
    const got = new Float64Array(n);
    await addon.cudaResidentDownload(id, got);
    addon.cudaResidentFree(id);
    const after = await lines.next();
    const released = after.done ? null : (JSON.parse(after.value) as { stats: { exports: number; cachedBytes: number } });
    log({ kind: 'native-ipc', bytes: n * 8, exportMs: offer.exportMs, importMs, importGBps: (n * 8) / importMs / 1e6, exporterAfter: released?.stats ?? null });
    for (let i = 0; i < n; i++) if (got[i] !== pattern(i)) return `element ${i}: ${got[i]}, want ${pattern(i)}`;
    if (!released) return 'the child did not confirm the release';
    if (released.stats.exports !== 0 || released.stats.cachedBytes !== n * 8) return `exporter after release: ${JSON.stringify(released.stats)}, want 0 lent and the buffer cached`;
    return null;
  } finally {
    child.stdin!.end();
  }
}

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const out = opt('--out', 'bench/results');
const cli = ['node', opt('--cli', '.devbuild/gpuflow/main.mjs')];
const workflow = opt('--workflow', IPC_WORKFLOW);
const log = (row: Record<string, unknown>) => {
  mkdirSync(out, { recursive: true });
  const line = JSON.stringify({ commit: process.env.GPUFLOW_COMMIT ?? null, ...row });
  console.log(line);
  appendFileSync(join(out, 'ipc.jsonl'), line + '\n');
};

async function main(): Promise<number> {
  const loaded = loadNative();
  if ('unavailable' in loaded) throw new Error(loaded.unavailable);
  if (args.includes('--export-child')) {
    await exportChild(loaded.addon, Number(opt('--export-child', '0')));
    return 0;
  }
  const results = [];
  for (const n of [1 << 20, 1 << 26]) {
    const name = `ipc: addon export in one process, import in another (${(n * 8) / 2 ** 20} MiB)`;
    try {
      results.push({ name, error: await nativeCheck(loaded.addon, n, log) });
    } catch (e) {
      results.push({ name, error: `threw ${e instanceof Error ? e.message : String(e)}` });
    }
  }
  results.push(...(await runIpcChecks({ cli, log, workflow })));
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
