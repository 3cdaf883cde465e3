/**
 * Workers forked before the engine exists. A worker process spends most of its start loading its
 * modules, and main as long loading the engine's; `gpuflow run` forks the workers it is about to
 * ask for first thing (CPU and virtual GPU workers at once, GPU workers as soon as the driver's
 * /proc listing or nvidia-smi has named the GPUs), so both loads overlap instead of following each other.
 *
 * A worker waits for its `init` message (worker/main.ts) before it does anything that depends on
 * its config, so a process forked early is the same as one forked by the pool. The launcher
 * returned here hands a pre-forked process to the pool when the pool asks for the same worker
 * name with the same environment (main/cluster/plan.ts makes both), and forks as usual otherwise
 * (a restart, a different plan); `dispose` kills the ones nobody claimed (a workflow refused
 * before the engine started, `--dask`). Only this module and the light ones it imports load
 * before the fork.
 */
import { traceStart } from '../../common/start-trace';
import { discover, type Discovery, type GpuInfo } from './discovery';
import type { LaunchedProcess, Launcher, LaunchOptions } from './launcher';
import { launchEnv, planWorkers, type PlanOptions } from './plan';

export interface Prelaunch {
  /** Hands out the pre-forked workers, then forks through `base`. */
  launcher: Launcher;
  /** The discovery the plan used (nvidia-smi runs once). */
  discovery: Promise<Discovery>;
  /** Kills the pre-forked workers nobody claimed. */
  dispose(): void;
}

interface Early {
  proc: LaunchedProcess;
  env: Record<string, string>;
  exited: boolean;
  /** A GPU worker (forked from the hint or from discovery). */
  gpu: boolean;
}

const sameEnv = (a: Record<string, string>, b: Record<string, string>) => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
};

/**
 * Forks the workers `opts` plans, CPU ones now and GPU ones once `discovery` resolves (default:
 * `discover()`, started here), or at once for the GPUs of `hint` (main/cluster/proc-gpus.ts, already
 * restricted as discovery restricts), which discovery then confirms or corrects.
 */
export function prelaunch(base: Launcher, opts: Omit<PlanOptions, 'discovery'>, discovery: Promise<Discovery> = discover(), hint?: GpuInfo[] | null): Prelaunch {
  const early = new Map<string, Early>();
  let disposed = false;
  const fork = (forGpus: boolean, d: Discovery) => {
    const planned = new Set<string>();
    for (const w of planWorkers({ ...opts, discovery: d }, '')) {
      if ((w.config.kind === 'gpu') !== forGpus || disposed) continue;
      const env = launchEnv(w.env, 1);
      const name = `gpuflow-${w.config.id}`;
      planned.add(name);
      const had = early.get(name);
      if (had && !had.exited && sameEnv(had.env, env)) continue; // forked from the hint, and right
      had?.proc.kill('SIGTERM');
      const proc = base.launch({ name, env });
      traceStart(`fork-${name}`);
      const e: Early = { proc, env, exited: false, gpu: forGpus };
      // A process that died before the pool claimed it is not handed out (its exit event is gone).
      proc.onExit(() => (e.exited = true));
      early.set(name, e);
    }
    return planned;
  };
  // The CPU workers' plan does not depend on the GPUs found, only on how many there are (their
  // threads); without a GPU count yet, plan as if none, which the CLI's --threads default makes
  // exact (1 thread) and which only costs a fresh fork when wrong.
  const noGpus = { gpus: [], cpu: { cores: 1, model: '', memoryTotalBytes: 0, memoryFreeBytes: 0 } };
  fork(false, noGpus);
  // The driver's own listing (hint) names the GPUs ~0.1 s before nvidia-smi answers: their workers
  // start now, and nvidia-smi's answer then keeps those it agrees with (same name and environment).
  if (hint && hint.length > 0) fork(true, { ...noGpus, gpus: hint });
  const found = discovery.then((d) => {
    traceStart(`discovered-${d.gpus.length}-gpus`);
    const planned = fork(true, d);
    for (const [name, e] of early) {
      if (e.gpu && !planned.has(name)) {
        e.proc.kill('SIGTERM'); // a GPU the hint had and nvidia-smi (or GPUFLOW_DEVICES) has not
        early.delete(name);
      }
    }
    return d;
  });
  return {
    discovery: found,
    launcher: {
      kind: base.kind,
      launch(o: LaunchOptions): LaunchedProcess {
        const e = early.get(o.name);
        if (e && !e.exited && sameEnv(e.env, o.env)) {
          early.delete(o.name);
          return e.proc;
        }
        return base.launch(o);
      },
    },
    dispose() {
      disposed = true;
      for (const e of early.values()) e.proc.kill('SIGTERM');
      early.clear();
    },
  };
}
