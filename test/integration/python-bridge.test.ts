/**
 * The Python side of the Dask bridge (python/tests: message validation, Philox in NumPy against
 * the C library, combines, the executor against js fixtures, the bridge process on a
 * LocalCluster) runs under the README's test command through this file, so CI runs it with the
 * rest. Its own assertions live in python/tests; this checks that unittest ran tests and all
 * passed, and shows its report when not.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DASK_PYTHON, skipDask } from '../helpers/dask-cluster';

describe.skipIf(skipDask)('python/tests (gpuflow_dask) under unittest', () => {
  it('runs every Python test and all pass', async () => {
    // Asynchronously: a suite of minutes must not block the test worker's event loop (vitest's
    // RPC to it times out, an "unhandled error" of a passing run).
    const r = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = spawn(DASK_PYTHON, ['-m', 'unittest', 'discover', '-s', 'python/tests', '-t', 'python/tests'], {
        env: { ...process.env, PYTHONPATH: path.resolve('python'), GPUFLOW_CAPI_DIR: path.resolve('native/build'), PYTHONUNBUFFERED: '1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
      child.on('exit', (status) => {
        clearTimeout(timer);
        resolve({ status, stderr });
      });
    });
    const report = `${r.stderr}`.slice(-6000);
    expect(r.status, report).toBe(0);
    const ran = /Ran (\d+) tests?/.exec(r.stderr);
    expect(ran, report).not.toBeNull();
    expect(Number(ran![1])).toBeGreaterThan(40);
    expect(r.stderr).toMatch(/\nOK( \(skipped=\d+\))?\s*$/);
  }, 660_000);
});
