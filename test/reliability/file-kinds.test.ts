/**
 * Files a workflow names that are not regular files (issue 29.1): a FIFO in an allowed folder
 * used to freeze serve (load_npy's header read opened it on main's thread, blocking in the kernel
 * until a writer came). Now every source's path is lstat'ed and opened with O_NONBLOCK, then
 * fstat'ed: a FIFO, a folder, a socket and a character device given to load_npy, read_csv and
 * read_parquet are refused at validation at once, naming the param and what the path is, and
 * serve keeps answering. Requests carry an abort timeout so the old code fails instead of hanging.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, tempDir, type Serving } from './helpers';

let s: Serving;
let dir: string;
let sock: net.Server;

beforeAll(async () => {
  dir = tempDir();
  execFileSync('mkfifo', [path.join(dir, 'pipe.npy')]);
  execFileSync('mkfifo', [path.join(dir, 'pipe.csv')]);
  execFileSync('mkfifo', [path.join(dir, 'pipe.parquet')]);
  mkdirSync(path.join(dir, 'folder.npy'));
  sock = net.createServer();
  await new Promise<void>((r) => sock.listen(path.join(dir, 'sock.npy'), r));
  s = await startServe(['--virtual-gpus', '1', '--backend', 'js', '--threads', '1', '--db', path.join(dir, 'gpuflow.db')], { GPUFLOW_NO_BUNDLE: '1', GPUFLOW_ALLOWED_DIRS: `${dir}:/dev` });
}, 90_000);

afterAll(async () => {
  await s?.stop();
  sock?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** POST /api/validate of a one-node document; the errors it answers, or 'no answer' after 15 s. */
async function validateErrors(node: Record<string, unknown>): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(`${s.base}/api/validate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ doc: { format: 'gpuflow.workflow/1', nodes: [{ id: 'src', ...node }], edges: [] } }),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, text: await res.text() };
  } catch (e) {
    return { status: -1, text: `no answer: ${String(e)}` };
  }
}

const cases: Array<[string, Record<string, unknown>, RegExp]> = [
  ['load_npy on a FIFO', { op: 'load_npy', params: { path: 'pipe.npy', chunks: [2] } }, /params\.path.*pipe\.npy is a FIFO \(named pipe\), not a regular file/],
  ['read_csv on a FIFO', { op: 'read_csv', params: { path: 'pipe.csv' } }, /params\.path.*pipe\.csv is a FIFO \(named pipe\), not a regular file/],
  ['read_parquet on a FIFO', { op: 'read_parquet', params: { path: 'pipe.parquet' } }, /params\.path.*pipe\.parquet is a FIFO \(named pipe\), not a regular file/],
  ['load_npy on a folder', { op: 'load_npy', params: { path: 'folder.npy', chunks: [2] } }, /params\.path.*folder\.npy is a folder, not a regular file/],
  ['load_npy on a socket', { op: 'load_npy', params: { path: 'sock.npy', chunks: [2] } }, /params\.path.*sock\.npy is a socket, not a regular file/],
  ['load_npy on /dev/zero', { op: 'load_npy', params: { path: '/dev/zero', chunks: [2] } }, /params\.path.*\/dev\/zero is a character device, not a regular file/],
  ['read_csv on /dev/urandom', { op: 'read_csv', params: { path: '/dev/urandom' } }, /params\.path.*\/dev\/urandom is a character device, not a regular file/],
];

describe('serve: files that are not regular files', () => {
  it.each(cases)('%s is refused at once naming the param, and serve keeps answering', { timeout: 40_000 }, async (_name, node, want) => {
    const params = node.params as Record<string, unknown>;
    const p = String(params.path);
    const r = await validateErrors({ ...node, params: { ...params, path: p.startsWith('/') ? p : path.join(dir, p) } });
    expect(r.status).not.toBe(-1);
    expect(r.text).toMatch(want);
    const devices = await fetch(`${s.base}/api/devices`, { headers: { authorization: `Bearer ${s.token}` }, signal: AbortSignal.timeout(15_000) });
    expect(devices.status).toBe(200);
  });
});
