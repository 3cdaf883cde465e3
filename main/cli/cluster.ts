/** Starts the engine (and store) the way the CLI options describe. */
import { discover } from '../cluster/discovery';
import { forkLauncher } from '../cluster/fork-launcher';
import { GpuflowService } from '../api/service';
import { Engine } from '../engine/engine';
import { defaultDbPath, openStore } from '../store';
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
  const store = withStore && !opts['no-store'] ? openStore(opts.db ?? process.env.GPUFLOW_DB ?? defaultDbPath()) : null;
  try {
    store?.markInterrupted();
    await engine.start();
  } catch (e) {
    await engine.shutdown().catch(() => undefined);
    store?.close();
    throw e;
  }
  return new GpuflowService(engine, store, { launcher, virtualGpus, backends });
}
