/** Starts workers with `child_process.fork` (serve, CLI, tests). */
import { fork } from 'node:child_process';
import type { ExitInfo, LaunchedProcess, Launcher, LaunchOptions } from './launcher';
import { workerEntry } from './worker-entry';

/**
 * Extra V8 / Node flags for forked workers from GPUFLOW_WORKER_V8_FLAGS (space-separated, each
 * starting with `--`; anything else is refused by name), for A/B runs of JIT settings on the GPU
 * machine, where a fresh worker runs its first thousand tasks before V8 has optimised them.
 */
export function workerV8Flags(env: NodeJS.ProcessEnv = process.env): string[] {
  const flags = (env.GPUFLOW_WORKER_V8_FLAGS ?? '').split(/\s+/).filter(Boolean);
  for (const f of flags) if (!/^--[a-z0-9][a-z0-9-]*(=[\w.-]+)?$/.test(f)) throw new RangeError(`GPUFLOW_WORKER_V8_FLAGS: '${f}' is not a --flag`);
  return flags;
}

export function forkLauncher(): Launcher {
  return {
    kind: 'fork',
    launch(opts: LaunchOptions): LaunchedProcess {
      const entry = workerEntry();
      const child = fork(entry.script, [`--gpuflow-worker=${opts.name}`], {
        execArgv: [...entry.execArgv, ...workerV8Flags()],
        env: { ...process.env, ...opts.env },
        // Structured clone keeps typed arrays intact across the IPC channel.
        serialization: 'advanced',
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      // A send to a child that just died fails asynchronously (EPIPE); its exit event reports
      // the death, so the error itself must not become an uncaught exception in main.
      child.on('error', (e) => process.stderr.write(`[${opts.name} ${child.pid ?? '-'}] ${e.message}\n`));
      return {
        get pid() {
          return child.pid;
        },
        send(msg) {
          if (!child.connected) return;
          try {
            child.send(msg, (err) => {
              if (err) process.stderr.write(`[${opts.name} ${child.pid ?? '-'}] message not delivered: ${err.message}\n`);
            });
          } catch {
            // The channel closed between the check and the send: the exit handler reports it.
          }
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
        detach() {
          child.unref();
          child.channel?.unref();
        },
      };
    },
  };
}
