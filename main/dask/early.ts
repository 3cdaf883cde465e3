/**
 * The bridge `gpuflow run --dask` starts at its first lines (main/cli.ts), before it reads and
 * compiles the workflow: the bridge's own imports (~0.6 s before `ready`) and, for `local:N` and
 * `local-cuda`, the cluster's start (GPUFLOW_DASK_PRESTART, python/gpuflow_dask/prestart.py: the
 * worker processes, ~1 s) overlap the CLI's work instead of following it (docs/dask.md, the phase
 * trace). DaskTarget.connect takes it for the same target; one nobody took (a refused workflow, an
 * unreachable scheduler) is killed with its process group, the cluster's processes included.
 * GPUFLOW_DASK_EARLY=0 turns it off.
 */
import { availableParallelism } from 'node:os';
import { localWorkersOver, readTarget } from './address';
import { Bridge, type Ready } from './bridge';

/** Stderr lines an early bridge writes before it is taken, at most this many (then handed to the taker's log). */
const HELD_LINES = 200;

type Started = { bridge: Bridge; ready: Ready };

let early: { target: string; started: Promise<Started>; kill: () => void; held: string[] } | null = null;

/** Spawns the bridge for `--dask value` now; nothing for an address the command will refuse. */
export function startEarlyBridge(value: string, env: NodeJS.ProcessEnv = process.env): void {
  if (early || env.GPUFLOW_DASK_EARLY === '0') return;
  const r = readTarget(value);
  if (!('target' in r) || localWorkersOver(r.target, availableParallelism()) !== null) return;
  const target = r.target;
  let spawned: Bridge | null = null;
  // Its log is kept for whoever takes it (the run's log, not this process's stderr).
  const held: string[] = [];
  const log = (l: string) => void (held.length < HELD_LINES && held.push(l));
  const started = Bridge.start({ env: target.startsWith('local') ? { ...env, GPUFLOW_DASK_PRESTART: target } : env, log, onSpawn: (b) => (spawned = b) });
  // Its failure is reported by the connect that takes it (or by none: the command failed before).
  started.catch(() => undefined);
  early = { target, started, kill: () => spawned?.kill(), held };
}

/** The early bridge when it was started for `target` (once), its stderr going to `log` from now on; null otherwise. */
export function takeEarlyBridge(target: string, log: (line: string) => void): Promise<Started> | null {
  if (!early || early.target !== target) return null;
  const { started, held } = early;
  early = null;
  return started.then((s) => {
    for (const l of held.splice(0)) log(l);
    s.bridge.setLog(log);
    return s;
  });
}

/** Kills an early bridge nobody took, and whatever it started. */
export function disposeEarlyBridge(): void {
  if (!early) return;
  // Killed now, ready or not: this process may be about to exit.
  early.kill();
  early = null;
}
