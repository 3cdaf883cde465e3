/** Runs the real `gpuflow` bin in a child process. */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function tempDb(): string {
  return path.join(mkdtempSync(path.join(tmpdir(), 'gpuflow-test-')), 'gpuflow.db');
}

/**
 * `until`: 'exit' resolves when the process exits; 'close' when its pipes close too, with what its
 * workers wrote to the shared stderr after that (their start-up trace lines).
 */
export function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000, until: 'exit' | 'close' = 'exit'): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/gpuflow.mjs', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gpuflow ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on(until, (code: number | null) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The digest of a `run --json` that finished; a failed command fails the test with its stderr (trace lines left out). */
export function finishedDigest(r: CliResult): string {
  expect(r.code, r.stderr.split('\n').filter((l) => !l.startsWith('gpuflow-trace')).join('\n')).toBe(0);
  const out = JSON.parse(r.stdout) as { status: string; digest: string };
  expect(out.status).toBe('finished');
  return out.digest;
}
