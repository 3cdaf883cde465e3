// `gpuflow run`'s GPU query, started as the command's first act (bin/gpuflow.mjs), before the CLI's
// modules load: the GPU workers are forked when nvidia-smi has answered (main/cluster/prelaunch.ts),
// and it takes about 0.1 s, which used to start only once the CLI bundle had loaded. The query
// waits in a global slot that main/cluster/discovery.ts takes (once) when it asks the same binary
// the same question; anything else ignores it, and the bin kills it if nobody took it.
import { execFile } from 'node:child_process';

/** The global slot's key (discovery.ts reads it by the same Symbol.for name). */
export const EARLY_NVIDIA_SMI = Symbol.for('gpuflow.early-nvidia-smi');

/** nvidia-smi's arguments: discovery.ts's QUERY_FIELDS (a unit test keeps the two equal). */
export const EARLY_ARGS = ['--query-gpu=index,uuid,name,memory.total,memory.used,utilization.gpu,pci.bus_id,driver_version', '--format=csv,noheader,nounits'];

/** Starts the query when `argv` is a `gpuflow run` that will fork local GPU workers; returns its child or null. */
export function startEarlyNvidiaSmi(argv, env = process.env) {
  if (argv[0] !== 'run' || env.GPUFLOW_PRELAUNCH === '0') return null;
  if (argv.some((a) => a === '--no-gpus' || a === '--dask' || a.startsWith('--dask='))) return null;
  const bin = env.GPUFLOW_NVIDIA_SMI ?? 'nvidia-smi';
  let child;
  const result = new Promise((resolve) => {
    child = execFile(bin, EARLY_ARGS, { timeout: 10_000 }, (err, stdout, stderr) => resolve({ err, stdout, stderr }));
  });
  globalThis[EARLY_NVIDIA_SMI] = { bin, args: EARLY_ARGS, result };
  return child;
}
