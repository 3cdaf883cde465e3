/**
 * Starts the engine (and store) the way the CLI options describe. The store (SQLite) is loaded
 * only when the command uses one, and opened while the workers start. Workers forked before the
 * engine loaded (`gpuflow run`: main/cli/workers.ts) are taken over through `early`.
 */
import { discover } from '../cluster/discovery';
import { forkLauncher } from '../cluster/fork-launcher';
import type { Prelaunch } from '../cluster/prelaunch';
import type { GpuSharing } from '../cluster/plan';
import { GpuflowService } from '../api/service';
import { Engine } from '../engine/engine';
import type { Store } from '../store/store';
import { secondsOption, UsageError, type Parsed } from './args';
import { workerOptions } from './workers';
import { DaskSetupError } from '../dask/interpreter';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import { localWorkersOver, parseTarget } from '../dask/address';
import type { ConnectOptions } from '../dask/target';
import { probeScheduler } from '../dask/reachable';

/**
 * `whileStarting` is called with the engine as soon as its workers are starting (`gpuflow run`
 * compiles its graph then: Engine.precompile).
 */
export async function startService(
  opts: Parsed['values'],
  withStore = true,
  early?: Prelaunch,
  whileStarting?: (engine: Engine) => void,
  /** Return once the first GPU worker is ready (WorkerPool.whenFirstReady), the rest still starting: `gpuflow run`. */
  onFirstReady = false,
  /**
   * GPU workers per GPU the run's workflow asks for (main/engine/gpu-sharing.ts), planned before
   * the pool forks any worker beyond those forked early (`gpuflow run`: a search's, from its graph).
   */
  planSharing?: (engine: Engine) => Promise<GpuSharing | undefined>,
): Promise<GpuflowService> {
  // A scheduler nobody answers on is reported before anything else starts (exit 1 within 10 s).
  const dask = daskOption(opts.dask);
  const connectOptions = dask === undefined ? undefined : daskConnectOptions(opts, dask);
  if (dask !== undefined) {
    const why = await probeScheduler(dask);
    if (why !== null) throw new DaskCliError(`cannot reach the Dask scheduler at ${dask}: ${why}`);
  }
  const w = workerOptions(opts);
  const discovery = await (early?.discovery ?? discover());
  const launcher = early?.launcher ?? forkLauncher();
  const engine = new Engine(discovery, { launcher, ...w });
  const sharing = await planSharing?.(engine);
  if (sharing) engine.pool.shareGpus(sharing);
  // The workers boot (a process each) while this process loads SQLite and opens the store.
  const starting = engine.start();
  whileStarting?.(engine);
  let store: Store | null = null;
  try {
    if (withStore && !opts['no-store']) {
      const { defaultDbPath, openStore } = await import('../store');
      store = openStore(opts.db ?? process.env.GPUFLOW_DB ?? defaultDbPath());
      store.markInterrupted();
    }
    await (onFirstReady ? engine.pool.whenFirstReady(starting) : starting);
    // Rejects only when no worker started, which cannot follow a ready one; never unhandled.
    starting.catch(() => undefined);
  } catch (e) {
    await starting.catch(() => undefined);
    await engine.shutdown().catch(() => undefined);
    store?.close();
    throw e;
  }
  const svc = new GpuflowService(engine, store, { launcher, virtualGpus: w.virtualGpus, backends: w.backends });
  if (dask) {
    try {
      const info = await svc.setDaskTarget(dask, connectOptions);
      if (info) process.stderr.write(`Dask cluster ${info.scheduler}${info.target !== info.scheduler ? ` (${info.target})` : ''}: ${info.workers.length} workers, distributed ${info.versions.distributed ?? '?'}\n`);
    } catch (e) {
      await svc.close().catch(() => undefined);
      if (e instanceof DaskSetupError) throw new DaskCliError(e.message);
      throw e;
    }
  }
  return svc;
}

/** --dask's address in the bridge's form; a mistake is a usage error (exit 2) naming --dask. */
export function daskOption(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  let t: string;
  try {
    t = parseTarget(v);
  } catch (e) {
    if (e instanceof DaskSetupError) throw new UsageError(`--dask: ${e.message}`);
    throw e;
  }
  const over = localWorkersOver(t, availableParallelism());
  if (over !== null) throw new UsageError(`--dask: ${over}`);
  return t;
}

/** How --dask connects besides its address: --dask-wait, and the TLS files a tls:// address needs. */
export function daskConnectOptions(opts: Parsed['values'], target: string): ConnectOptions {
  const files = { ca: opts['dask-tls-ca'], cert: opts['dask-tls-cert'], key: opts['dask-tls-key'] };
  const given = Object.entries(files).filter(([, v]) => v !== undefined);
  const waitS = secondsOption(opts['dask-wait'], 'dask-wait');
  if (!target.startsWith('tls://')) {
    if (given.length) throw new UsageError(`--dask-tls-${given[0]![0]} applies to a tls:// address, not ${target}`);
    return { waitS };
  }
  const missing = Object.keys(files).filter((k) => files[k as keyof typeof files] === undefined);
  if (missing.length) throw new UsageError(`--dask ${target} needs ${missing.map((k) => `--dask-tls-${k}`).join(', ')} (the CA, the client certificate and its key, PEM files)`);
  const tls = { ca: '', cert: '', key: '' };
  for (const k of ['ca', 'cert', 'key'] as const) {
    const p = resolve(files[k]!);
    if (!existsSync(p)) throw new UsageError(`--dask-tls-${k}: cannot read ${p}`);
    tls[k] = p;
  }
  return { waitS, tls };
}

/** A Dask target that cannot be used: exit 1 with its message (not a usage error). */
export class DaskCliError extends Error {}
