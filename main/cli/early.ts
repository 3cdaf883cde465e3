/**
 * What bin/gpuflow.mjs asks before anything else loads: whether this `gpuflow run` will likely
 * hand its run to a warm serve (main/cli/attach.ts). Then it starts no early nvidia-smi
 * (bin/early-nvidia-smi.mjs): loading child_process and spawning the query cost an attached run
 * 7-12 ms of its main thread on the 2-core build machine, for an answer only a local run uses.
 * Built as its own small bundle entry (bin/build-bundles.mjs): the command-line parser and one
 * stat. A wrong guess costs only time: a run that does not attach after all asks nvidia-smi when
 * it discovers its devices (main/cluster/discovery.ts), as without the early query.
 */
import { parseCli } from './args';
import { serveFileFor } from './warm-pool';

export function likelyAttached(argv: string[], env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    const { positionals, values } = parseCli(argv);
    return positionals[0] === 'run' && serveFileFor(values, env) !== null;
  } catch {
    // Bad usage: the command reports it; nothing is started early either way.
    return false;
  }
}
