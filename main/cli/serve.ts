/**
 * `gpuflow serve`: the API and UI on 127.0.0.1 (or --host), with a random token printed at start.
 *
 * SIGTERM (systemd, Docker, Kubernetes) and SIGINT (a terminal) both stop it cleanly: runs are
 * cancelled, workers told to shut down (killed if they do not), and the store closed, which
 * checkpoints its WAL. The handlers are installed before anything starts, so a signal during the
 * start-up (which launches workers and can take seconds) is not lost to Node's default action,
 * which would leave the workers orphaned and the database unclosed: the server stops as soon as
 * the start-up is over. A second signal while stopping exits at once.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { examplesDir } from '../api/examples';
import type { GpuflowService } from '../api/service';
import { traceStart } from '../../common/start-trace';
import { serve } from '../api/http';
import { intOption, UsageError, type Parsed } from './args';
import { daskConnectOptions, daskOption, startService } from './cluster';
import { loopbackOrigin, removeServeFile, writeServeFile } from '../api/serve-file';
import { workerPoolKey } from './workers';
import { defaultDbPath, serveFilePath } from '../store/default-path';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Once everything is closed nothing should keep the process alive; if a stray handle does, exit anyway. */
const DRAIN_MS = 5000;

export async function serveCommand(_positionals: string[], opts: Parsed['values']): Promise<number> {
  const token = opts.token ?? randomBytes(18).toString('base64url');
  if (token.length < 16) throw new UsageError('--token must be at least 16 characters');
  const port = intOption(opts.port, 'port') ?? 7077;
  let signalled: NodeJS.Signals | null = null;
  let wake = () => {};
  const stopped = new Promise<void>((resolve) => (wake = resolve));
  const onSignal = (sig: NodeJS.Signals) => {
    if (signalled) {
      process.stderr.write(`gpuflow serve: ${sig} again, exiting now\n`);
      process.exit(1);
    }
    signalled = sig;
    process.stderr.write(`gpuflow serve: ${sig}, stopping\n`);
    wake();
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  try {
    // Local workers always start (the app may switch back to this workstation); the cluster is
    // --dask's, else the one remembered in the store, connected in the background.
    const dask = daskOption(opts.dask);
    const connectOptions = dask === undefined ? undefined : daskConnectOptions(opts, dask);
    const svc = await startService({ ...opts, dask: undefined });
    if (dask !== undefined) await svc.selectCluster(dask, connectOptions);
    else void svc.restoreCluster();
    let served: Awaited<ReturnType<typeof serve>> | null = null;
    let announced: string | null = null;
    try {
      if (!signalled) {
        const host = opts.host ?? '127.0.0.1';
        served = await serve(svc, { host, port, token });
        announced = announce(opts, host, served.port, token);
        process.stdout.write(`gpuflow serve: ${served.url}\n`);
        void warmRunPath(svc);
      }
      await stopped;
    } finally {
      if (announced) removeServeFile(announced);
      await served?.close();
      await svc.close();
    }
    process.stderr.write('gpuflow serve: stopped\n');
    setTimeout(() => process.exit(0), DRAIN_MS).unref();
    return 0;
  } finally {
    // Left installed, a later signal would go to a handler whose server is gone; the second-signal
    // exit above covers a close that hangs.
    if (!signalled) for (const s of STOP_SIGNALS) process.off(s, onSignal);
  }
}

/**
 * Validates and compiles a small seed workflow once, recording nothing: a serve's first run paid
 * for V8 compiling that code on its way to starting (its POST to its start 15 ms on the 2-core
 * build machine against 4 ms for later runs; 35 ms against 7-11 on the x4, docs/performance.md).
 * Its failure (examples/ missing from an install) costs only that.
 */
async function warmRunPath(svc: GpuflowService): Promise<void> {
  try {
    const doc: unknown = JSON.parse(await readFile(path.join(examplesDir(), 'seed-benchmark.json'), 'utf8'));
    await svc.validateAsync(doc, { N: 200, chunks: 100 });
    traceStart('serve-run-path-warm');
  } catch {
    // Nothing to warm with: the first run pays as before.
  }
}

/**
 * Writes the warm-pool file for `gpuflow run` (main/cli/attach.ts); its path, or null when there
 * is nothing to announce (no store: attached runs would not be recorded; a host with no loopback
 * address to reach it by). A file that cannot be written costs the warm pool, not the server.
 */
function announce(opts: Parsed['values'], host: string, port: number, token: string): string | null {
  const origin = loopbackOrigin(host, port);
  if (opts['no-store'] || origin === null) return null;
  const path = serveFilePath(opts.db ?? process.env.GPUFLOW_DB ?? defaultDbPath());
  try {
    writeServeFile(path, { pid: process.pid, origin, token, pool: workerPoolKey({ ...opts, dask: undefined }), cwd: process.cwd(), allowedDirs: process.env.GPUFLOW_ALLOWED_DIRS ?? null });
    return path;
  } catch (e) {
    process.stderr.write(`gpuflow serve: cannot write ${path} (gpuflow run will not find this server): ${e instanceof Error ? e.message : String(e)}\n`);
    return null;
  }
}
