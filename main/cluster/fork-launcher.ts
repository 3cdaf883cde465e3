/** Starts workers with `child_process.fork` (serve, CLI, tests). */
import { fork } from 'node:child_process';
import type { ExitInfo, LaunchedProcess, Launcher, LaunchOptions } from './launcher';
import { workerEntry } from './worker-entry';

export function forkLauncher(): Launcher {
  return {
    kind: 'fork',
    launch(opts: LaunchOptions): LaunchedProcess {
      const entry = workerEntry();
      const child = fork(entry.script, [`--gpuflow-worker=${opts.name}`], {
        execArgv: entry.execArgv,
        env: { ...process.env, ...opts.env },
        // Structured clone keeps typed arrays intact across the IPC channel.
        serialization: 'advanced',
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      return {
        get pid() {
          return child.pid;
        },
        send(msg) {
          if (child.connected) child.send(msg);
        },
        onMessage(fn) {
          child.on('message', (m: unknown) => fn(m));
        },
        onExit(fn: (info: ExitInfo) => void) {
          child.on('exit', (code, signal) => fn({ code, signal }));
        },
        kill(signal) {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        },
      };
    },
  };
}
