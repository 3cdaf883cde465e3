/**
 * Starts workers as Electron `utilityProcess`es (the app). Electron is passed in rather than
 * imported, so this module type-checks and loads without the Electron runtime.
 *
 * A utility process's 'exit' carries only a code; why it died ('oom', 'crashed', 'killed',
 * 'launch-failed'…) comes with app's `child-process-gone`, matched by serviceName. Electron does
 * not promise which of the two comes first, so an abnormal exit waits a moment for the reason.
 */
import type { ProcessGoneDetails, UtilityProcessLike } from '../electron-api';
import type { ExitInfo, LaunchedProcess, Launcher, LaunchOptions } from './launcher';
import { workerEntry } from './worker-entry';

/** The part of Electron's utilityProcess API the launcher uses. */
export type UtilityProcessApi = UtilityProcessLike;

/** Subscribes to app's 'child-process-gone' (app.on), when the caller has it. */
export type OnProcessGone = (fn: (details: ProcessGoneDetails) => void) => void;

/** How long an abnormal exit waits for its child-process-gone reason. */
const REASON_WAIT_MS = 200;

export function utilityLauncher(utilityProcess: UtilityProcessApi, onGone?: OnProcessGone): Launcher {
  const reasons = new Map<string, string>();
  let serial = 0;
  onGone?.((d) => {
    const name = d.serviceName ?? d.name;
    if (d.type === 'Utility' && name && reasons.has(name)) reasons.set(name, `${d.reason}${d.exitCode ? `, exit code ${d.exitCode}` : ''}`);
  });
  return {
    kind: 'utility',
    launch(opts: LaunchOptions): LaunchedProcess {
      const entry = workerEntry();
      // A fresh service name per launch, so a restarted worker's reason is never its predecessor's.
      const serviceName = `${opts.name}#${++serial}`;
      reasons.set(serviceName, '');
      const child = utilityProcess.fork(entry.script, [`--gpuflow-worker=${opts.name}`], {
        env: { ...process.env, ...opts.env },
        serviceName,
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
          child.on('exit', (code) => {
            const report = () => {
              const detail = reasons.get(serviceName);
              reasons.delete(serviceName);
              fn(detail ? { code, signal: null, detail } : { code, signal: null });
            };
            if (code === 0 || reasons.get(serviceName)) report();
            else setTimeout(report, REASON_WAIT_MS);
          });
        },
        kill() {
          // utilityProcess offers only one kill; the pool's escalation ends at it.
          if (!exited) child.kill();
        },
      };
    },
  };
}
