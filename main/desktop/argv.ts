/** Workflow files named on a command line: the first launch's, or a second instance's handed over. */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Electron's argv is the binary, then (unpackaged) the app folder, Chromium switches, and ours:
 * every existing .json / .gpuflow file among them, resolved against the launch's `cwd`.
 */
export function filesFromArgv(argv: string[], cwd: string): string[] {
  return argv
    .slice(1)
    .filter((a) => !a.startsWith('-') && /\.(json|gpuflow)$/i.test(a))
    .map((a) => path.resolve(cwd, a))
    .filter((f) => existsSync(f) && statSync(f).isFile());
}
