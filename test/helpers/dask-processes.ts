/**
 * A real `dask scheduler` and `dask worker` as separate processes (distributed's CLI modules
 * under Debian's Python), for the fault tests that kill or restart them. Everything listens on
 * 127.0.0.1 only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { DASK_PYTHON } from './dask-cluster';

const env = { ...process.env, PYTHONPATH: path.resolve(__dirname, '../../python'), GPUFLOW_CAPI_DIR: path.resolve(__dirname, '../../native/build'), DASK_DISTRIBUTED__DIAGNOSTICS__NVML: 'False' };

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect({ host: '127.0.0.1', port });
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });
}

/** A scheduler on 127.0.0.1:`port` (`extra`: more of its options, TLS), resolved once it accepts connections. */
export async function startScheduler(port: number, extra: string[] = []): Promise<ChildProcess> {
  const child = spawn(DASK_PYTHON, ['-m', 'distributed.cli.dask_scheduler', '--host', '127.0.0.1', '--port', String(port), '--dashboard-address', '127.0.0.1:0', ...extra], { env, stdio: 'ignore' });
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`dask scheduler exited ${child.exitCode}`);
    if (await listening(port)) return child;
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`dask scheduler on port ${port} did not listen within 60 s`);
}

/** One worker process of one thread (no nanny: killing it ends it). */
export function startWorker(address: string, extra: string[] = []): ChildProcess {
  return spawn(DASK_PYTHON, ['-m', 'distributed.cli.dask_worker', address, '--nthreads', '1', '--no-nanny', '--host', '127.0.0.1', '--dashboard-address', '127.0.0.1:0', ...extra], { env, stdio: 'ignore' });
}

export function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
