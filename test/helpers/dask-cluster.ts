/**
 * The Dask tests' shared LocalCluster (test/helpers/local_cluster.py under /usr/bin/python3) and
 * when they run: only where that Python has distributed, except in CI, where a missing
 * distributed is a failure (like the Chromium check in test/e2e/harness.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

export const DASK_PYTHON = '/usr/bin/python3';

export const daskAvailable = spawnSync(DASK_PYTHON, ['-c', "import importlib.util as u, sys; sys.exit(0 if u.find_spec('distributed') else 1)"]).status === 0;
if (!daskAvailable && process.env.CI) throw new Error(`${DASK_PYTHON} lacks Dask's distributed package: CI must install python3-distributed (.ci/run)`);
/** True where the Dask tests are skipped (no distributed, not CI). */
export const skipDask = !daskAvailable;

export interface SharedCluster {
  address: string;
  /** Worker name -> pid. */
  workers: Record<string, number>;
  close(): Promise<void>;
}

export async function startLocalCluster(n = 2): Promise<SharedCluster> {
  const child = spawn(DASK_PYTHON, [path.join(__dirname, 'local_cluster.py'), String(n)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`local_cluster.py exited ${code}: ${err}`)));
  });
  const info = JSON.parse(line) as { address: string; workers: Record<string, number> };
  return {
    ...info,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.stdin.end();
      }),
  };
}
