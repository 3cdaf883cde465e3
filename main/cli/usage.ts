/**
 * The command line's usage text, one entry per command: `gpuflow --help` prints them all,
 * `gpuflow <command> --help` that command's alone, from the same entry, so the two never differ.
 */

interface CommandUsage {
  /** The command and its positional arguments, as typed. */
  synopsis: string;
  /** What it does and its options; one string per printed line. */
  lines: readonly string[];
}

const COMMANDS: Readonly<Record<string, CommandUsage>> = {
  devices: { synopsis: 'devices', lines: ['GPUs, CPU and compute backends (--json)'] },
  run: {
    synopsis: 'run <workflow.json>',
    lines: [
      'run a workflow (--json, --param NAME=VALUE, --virtual-gpus N,',
      '--cpu-workers N, --threads N, --backend js|native-cpu|cuda, --db FILE,',
      '--no-store, --no-gpus, --no-attach: start workers here even when a',
      'gpuflow serve with the same workers runs on this database',
      '--dask tcp://host:8786|tls://host:8786|local:N|local-cuda: run it on a',
      'Dask cluster; --dask-wait S: how long a run waits for workers, or for',
      'any of its tasks to start or finish, default 60;',
      '--dask-tls-ca/--dask-tls-cert/--dask-tls-key FILE for tls://)',
    ],
  },
  'export-dask': { synopsis: 'export-dask <workflow.json>', lines: ['a standalone Python script running it with gpuflow_dask (stdout)'] },
  explain: { synopsis: 'explain <workflow.json>', lines: ['the task graph before and after optimisation, and its critical path'] },
  serve: { synopsis: 'serve', lines: ['the API and UI over HTTP + WebSocket (--host, --port, --token);', '`gpuflow run` hands it runs (its workers stay warm)'] },
  bench: {
    synopsis: 'bench <workflow.json>',
    lines: ['one CPU core, all cores, one GPU, all GPUs, and with --dask ADDRESS', 'a Dask cluster (--repeat N, --warmup N, --json)'],
  },
  history: {
    synopsis: 'history',
    lines: ['runs in the store (--status, --workflow, --sort, --limit, --json;', '--benchmarks: the stored benchmarks instead)'],
  },
  show: { synopsis: 'show <run-id>', lines: ['one stored run: workflow, status, target, digest, stats, results (--json)'] },
  benchmarks: { synopsis: 'benchmarks [<id>]', lines: ['stored benchmarks, newest first, or one (--workflow, --limit, --json)'] },
  replay: {
    synopsis: 'replay <run-id>',
    lines: ['re-run a stored run exactly and compare its digest (--json; --dask', 'ADDRESS replays it on a Dask cluster, else on this workstation)'],
  },
  export: { synopsis: 'export <run-id>... --out F', lines: ['runs as a file, each with its workflow version embedded'] },
  import: { synopsis: 'import <file>', lines: ['add an export\'s workflows and runs to the store'] },
};

const COLUMN = 29;

/** Every command, as `gpuflow --help` prints it. */
export const USAGE = `usage: gpuflow <command> [options]

commands:
${Object.values(COMMANDS)
  .flatMap((c) => c.lines.map((l, i) => `  ${(i === 0 ? c.synopsis : '').padEnd(COLUMN)}${l}`))
  .join('\n')}
  <command> --help             that command's usage
`;

/** One command's usage (`gpuflow <command> --help`); the whole text for a command we do not have. */
export function commandUsage(command: string): string {
  const c = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!c) return USAGE;
  return `usage: gpuflow ${c.synopsis} [options]\n\n${c.lines.map((l) => `  ${l}`).join('\n')}\n`;
}
