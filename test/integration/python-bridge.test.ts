/**
 * The Python side of the Dask bridge (python/tests: message validation, Philox in NumPy against
 * the C library, combines, the executor against js fixtures, the bridge process on a
 * LocalCluster) runs under the README's test command through this file, so CI runs it with the
 * rest. Its own assertions live in python/tests; this checks that unittest ran tests and all
 * passed, and shows its report when not.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DASK_PYTHON, skipDask } from '../helpers/dask-cluster';

describe.skipIf(skipDask)('python/tests (gpuflow_dask) under unittest', () => {
  it('runs every Python test and all pass', () => {
    const r = spawnSync(DASK_PYTHON, ['-m', 'unittest', 'discover', '-s', 'python/tests', '-t', 'python/tests'], {
      encoding: 'utf8',
      timeout: 600_000,
      env: { ...process.env, PYTHONPATH: path.resolve('python'), GPUFLOW_CAPI_DIR: path.resolve('native/build'), PYTHONUNBUFFERED: '1' },
    });
    const report = `${r.stderr}`.slice(-6000);
    expect(r.status, report).toBe(0);
    const ran = /Ran (\d+) tests?/.exec(r.stderr);
    expect(ran, report).not.toBeNull();
    expect(Number(ran![1])).toBeGreaterThan(40);
    expect(r.stderr).toMatch(/\nOK( \(skipped=\d+\))?\s*$/);
  }, 660_000);
});
