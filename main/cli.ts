/**
 * The `gpuflow` command line: devices, run, explain, serve, bench, history, show, benchmarks,
 * replay, export, import. Exit codes:
 * 0 success, 1 a run failed, 2 bad usage or an invalid workflow (the message names the node and
 * field).
 *
 * Start-up: every command's module is imported when that command runs, and `run` forks its
 * workers (main/cli/workers.ts) before it imports the engine, so the workers load their modules
 * while this process loads its own (docs/performance.md, "Start-up"), unless a `gpuflow serve`
 * already running on this workstation takes the run (main/cli/attach.ts, `--no-attach` opts out).
 */
import { WorkflowError, WorkflowErrors } from './engine/errors';
import { parseCli, UsageError } from './cli/args';
import type { Prelaunch } from './cluster/prelaunch';
import { prelaunchFor } from './cli/workers';
import { findWarmPool, type WarmPool } from './cli/warm-pool';
import { traceStart } from '../common/start-trace';
import { commandUsage, USAGE } from './cli/usage';

export { exitWhenIdle } from './cli/exit-now';

type Command = (positionals: string[], opts: ReturnType<typeof parseCli>['values'], early?: Prelaunch, pool?: WarmPool | null) => Promise<number>;

async function lazy(name: string): Promise<Command> {
  switch (name) {
    case 'devices': {
      const { devicesCommand } = await import('./cli/devices');
      return (_p, o) => devicesCommand(o);
    }
    case 'run':
      return (await import('./cli/run')).runCommand;
    case 'explain':
      return (await import('./cli/explain')).explainCommand;
    case 'serve':
      return (await import('./cli/serve')).serveCommand;
    case 'bench':
      return (await import('./cli/bench')).benchCommand;
    case 'history':
      return (await import('./cli/history')).historyCommand;
    case 'show':
      return (await import('./cli/records')).showCommand;
    case 'benchmarks':
      return (await import('./cli/records')).benchmarksCommand;
    case 'replay':
      return (await import('./cli/history')).replayCommand;
    case 'export':
      return (await import('./cli/history')).exportCommand;
    case 'export-dask':
      return (await import('./cli/export-dask')).exportDaskCommand;
    case 'import':
      return (await import('./cli/history')).importCommand;
    default:
      throw new UsageError(`unknown command '${name}'\n${USAGE}`);
  }
}

export async function main(argv: string[]): Promise<number> {
  traceStart('cli');
  // When main's event loop has drained (what still ran after the command's end shows up here).
  process.once('exit', () => traceStart('exit'));
  let early: Prelaunch | undefined;
  let pool: WarmPool | null = null;
  let earlyDask: typeof import('./dask/early') | undefined;
  try {
    const parsed = parseCli(argv);
    const [cmd, ...rest] = parsed.positionals;
    if (!cmd || parsed.values.help) {
      process.stdout.write(cmd ? commandUsage(cmd) : USAGE);
      return cmd ? 0 : 2;
    }
    // A warm serve takes the run (main/cli/attach.ts): then no worker is forked here.
    const file = cmd === 'run' ? await findWarmPool(parsed.values) : null;
    if (file) traceStart('warm-pool-found');
    pool = file ? { file } : null;
    if (cmd === 'run' && !pool) early = await prelaunchFor(parsed.values);
    // A Dask run's bridge (and local cluster) starts now, while the workflow is read and compiled.
    if (cmd === 'run' && parsed.values.dask !== undefined) {
      earlyDask = await import('./dask/early');
      earlyDask.startEarlyBridge(parsed.values.dask);
    }
    return await (await lazy(cmd))(rest, parsed.values, early, pool);
  } catch (e) {
    if (e instanceof WorkflowErrors || e instanceof WorkflowError) return invalidWorkflow(e.message.split('\n'));
    // serve's refusal of an attached run's document (main/api/http.ts): printed as a local one.
    if (e instanceof Error && 'status' in e && e.status === 400 && e.message === 'invalid workflow' && 'errors' in e && Array.isArray(e.errors)) return invalidWorkflow(e.errors.map(String));
    if (e instanceof UsageError || (e instanceof TypeError && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS'))) {
      process.stderr.write(`${e.message}\n`);
      return 2;
    }
    // An ApiError's `errors` say what is wrong (which node, which field): printed under its message.
    const details = e instanceof Error && 'errors' in e && Array.isArray(e.errors) ? e.errors.map((l) => `  ${String(l)}\n`).join('') : '';
    process.stderr.write(`gpuflow: ${e instanceof Error ? e.message : String(e)}\n${details}`);
    // A refused document (ApiError 400) is a usage error like an invalid workflow file.
    return e instanceof Error && 'status' in e && e.status === 400 ? 2 : 1;
  } finally {
    // Workers forked for a run that never started them (a refused workflow, an error).
    early?.dispose();
    earlyDask?.disposeEarlyBridge();
    traceStart('cli-done');
  }
}

/** Prints a refused document's problems, one a line (a local validation's or serve's); exit code 2. */
function invalidWorkflow(lines: string[]): number {
  process.stderr.write(`invalid workflow:\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  return 2;
}
