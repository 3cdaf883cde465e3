/**
 * Starts the engine (and store) the way the CLI options describe. The store (SQLite) is loaded
 * only when the command uses one, and opened while the workers start.
 */
import { discover } from '../cluster/discovery';
import { forkLauncher } from '../cluster/fork-launcher';
import { GpuflowService } from '../api/service';
import { Engine } from '../engine/engine';
import type { Store } from '../store/store';
import { intOption, UsageError, type Parsed } from './args';
import { DaskSetupError } from '../dask/interpreter';
import { parseTarget } from '../dask/target';
import { probeScheduler } from '../dask/reachable';

export async function startService(opts: Parsed['values'], withStore = true): Promise<GpuflowService> {
  // A scheduler nobody answers on is reported before anything else starts (exit 1 within 10 s).
  if (opts.dask !== undefined) {
    let t: string;
    try {
      t = parseTarget(opts.dask);
    } catch (e) {
      throw new UsageError(`--dask: ${(e as Error).message}`);
    }
    const why = await probeScheduler(t);
    if (why !== null) throw new DaskCliError(`cannot reach the Dask scheduler at ${t}: ${why}`);
  }
  const discovery = await discover();
  const backend = opts.backend;
  if (backend !== undefined && !['js', 'native-cpu', 'cuda'].includes(backend)) throw new UsageError(`--backend must be js, native-cpu or cuda, got '${backend}'`);
  const launcher = forkLauncher();
  const virtualGpus = intOption(opts['virtual-gpus'], 'virtual-gpus') ?? 0;
  const backends = backend ? [backend as 'js' | 'native-cpu' | 'cuda'] : undefined;
  let dask: string | undefined;
  try {
    dask = opts.dask === undefined ? undefined : parseTarget(opts.dask);
  } catch (e) {
    throw new UsageError(`--dask: ${(e as Error).message}`);
  }
  // With --dask the runs go to the cluster: no local workers are started.
  const engine = new Engine(discovery, {
    launcher,
    useGpus: dask ? false : !opts['no-gpus'],
    virtualGpus: dask ? 0 : virtualGpus,
    cpuWorkers: dask ? 0 : (intOption(opts['cpu-workers'], 'cpu-workers') ?? 1),
    threadsPerCpuWorker: intOption(opts.threads, 'threads', 1),
    backends,
  });
  // The workers boot (a process each) while this process loads SQLite and opens the store.
  const starting = engine.start();
  let store: Store | null = null;
  try {
    if (withStore && !opts['no-store']) {
      const { defaultDbPath, openStore } = await import('../store');
      store = openStore(opts.db ?? process.env.GPUFLOW_DB ?? defaultDbPath());
      store.markInterrupted();
    }
    await starting;
  } catch (e) {
    await starting.catch(() => undefined);
    await engine.shutdown().catch(() => undefined);
    store?.close();
    throw e;
  }
  const svc = new GpuflowService(engine, store, { launcher, virtualGpus, backends });
  if (dask) {
    try {
      const info = await svc.setDaskTarget(dask);
      if (info) process.stderr.write(`Dask cluster ${info.scheduler}${info.target !== info.scheduler ? ` (${info.target})` : ''}: ${info.workers.length} workers, distributed ${info.versions.distributed ?? '?'}\n`);
    } catch (e) {
      await svc.close().catch(() => undefined);
      if (e instanceof DaskSetupError) throw new DaskCliError(e.message);
      throw e;
    }
  }
  return svc;
}

/** A Dask target that cannot be used: exit 1 with its message (not a usage error). */
export class DaskCliError extends Error {}
