/**
 * `--dask tls://...` with --dask-tls-ca/cert/key against a scheduler and worker that accept only
 * TLS, with a self-signed certificate made here by openssl (it is the CA, the scheduler's, the
 * worker's and gpuflow's certificate at once): the run gives the local digest. Without the files
 * the CLI refuses the address before connecting, naming the options it needs.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../common/results';
import { runDigest } from '../../main/api/run-record';
import { DASK_PYTHON, skipDask } from '../helpers/dask-cluster';
import { freePort, killed, startScheduler, startWorker } from '../helpers/dask-processes';
import { runLocal } from '../helpers/local-run';
import { runCli } from './cli-helpers';

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

describe.skipIf(skipDask || !hasOpenssl)('gpuflow run --dask tls://', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  let address: string;
  let procs: ChildProcess[] = [];

  beforeAll(async () => {
    const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl: ${r.stderr}`);
    const port = await freePort();
    address = `tls://127.0.0.1:${port}`;
    const tls = ['--tls-ca-file', cert, '--tls-cert', cert, '--tls-key', key];
    procs.push(await startScheduler(port, ['--protocol', 'tls', ...tls]));
    procs.push(startWorker(address, tls));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(procs.map(killed));
    procs = [];
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the seed example with the local digest through distributed.security.Security', async () => {
    const params = { N: 400, chunks: 100 };
    const r = await runCli(['run', 'examples/seed-benchmark.json', '--dask', address, '--dask-tls-ca', cert, '--dask-tls-cert', cert, '--dask-tls-key', key, '--json', '--no-store', '--param', 'N=400', '--param', 'chunks=100'], { GPUFLOW_PYTHON: DASK_PYTHON }, 180_000);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const out = JSON.parse(r.stdout) as { status: string; digest: string };
    expect(out.status).toBe('finished');
    const seed = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8')) as unknown;
    expect(out.digest).toBe(await runDigest({ results: await runLocal(seed, params) } as RunResult));
  }, 180_000);

  it('refuses tls:// without its files before connecting, naming the options (exit 2)', async () => {
    const r = await runCli(['run', 'examples/seed-benchmark.json', '--dask', address, '--dask-tls-ca', cert, '--no-store'], { GPUFLOW_PYTHON: DASK_PYTHON });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--dask ${address} needs --dask-tls-cert, --dask-tls-key`);
  });
});
