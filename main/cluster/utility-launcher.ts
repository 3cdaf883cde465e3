/**
 * Starts workers as Electron `utilityProcess`es (the app). Electron is passed in rather than
 * imported, so this module type-checks and loads without the Electron runtime.
 */
import type { ExitInfo, LaunchedProcess, Launcher, LaunchOptions } from './launcher';
import { workerEntry } from './worker-entry';

/** The part of Electron's utilityProcess API the launcher uses. */
export interface UtilityProcessApi {
  fork(
    modulePath: string,
    args: string[],
    options: { env: NodeJS.ProcessEnv; serviceName: string; stdio: 'inherit' },
  ): {
    pid: number | undefined;
    postMessage(msg: unknown): void;
    on(event: 'message', fn: (msg: unknown) => void): void;
    on(event: 'exit', fn: (code: number) => void): void;
    kill(): boolean;
  };
}

export function utilityLauncher(utilityProcess: UtilityProcessApi): Launcher {
  return {
    kind: 'utility',
    launch(opts: LaunchOptions): LaunchedProcess {
      const entry = workerEntry();
      const child = utilityProcess.fork(entry.script, [`--gpuflow-worker=${opts.name}`], {
        env: { ...process.env, ...opts.env },
        serviceName: opts.name,
        stdio: 'inherit',
      });
      let exited = false;
      child.on('exit', () => {
        exited = true;
      });
      return {
        get pid() {
          return child.pid;
        },
        send(msg) {
          if (!exited) child.postMessage(msg);
        },
        onMessage(fn) {
          child.on('message', fn);
        },
        onExit(fn: (info: ExitInfo) => void) {
          child.on('exit', (code) => fn({ code, signal: null }));
        },
        kill() {
          // utilityProcess offers only one kill; the pool's escalation ends at it.
          if (!exited) child.kill();
        },
      };
    },
  };
}
