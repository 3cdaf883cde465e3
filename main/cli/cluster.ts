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

export async function startService(opts: Parsed['values'], withStore = true): Promise<GpuflowService> {
  const discovery = await discover();
  const backend = opts.backend;
  if (backend !== undefined && !['js', 'native-cpu', 'cuda'].includes(backend)) throw new UsageError(`--backend must be js, native-cpu or cuda, got '${backend}'`);
  const launcher = forkLauncher();
  const virtualGpus = intOption(opts['virtual-gpus'], 'virtual-gpus') ?? 0;
  const backends = backend ? [backend as 'js' | 'native-cpu' | 'cuda'] : undefined;
  const engine = new Engine(discovery, {
    launcher,
    useGpus: !opts['no-gpus'],
    virtualGpus,
    cpuWorkers: intOption(opts['cpu-workers'], 'cpu-workers') ?? 1,
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
  return new GpuflowService(engine, store, { launcher, virtualGpus, backends });
}
