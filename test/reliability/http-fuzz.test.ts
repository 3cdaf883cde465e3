/**
 * A seeded fuzzer for serve's HTTP surface (issue 29), loopback only, bounded in count (400
 * requests; SOAK 4 000) and time: random and mutated bodies (random JSON, deep nesting, wide
 * arrays, truncated text, random bytes, 17 MB), headers (content types, tokens, Origin,
 * Sec-Fetch-Site, cookies, long odd headers), paths (unknown routes, ids, traversal, bad
 * percent-encoding) and file params pointing at what a hostile local user can plant: FIFOs, a
 * socket, a folder, links to a FIFO, to a folder and outside, dangling links, /dev and /proc
 * entries (allowed folders here, so the file-kind checks are what answers), and write_parquet
 * runs into a folder whose part files are links to a file outside.
 *
 * Asserted: every request is answered, with a 2xx or 4xx and never a 5xx; serve is up at the
 * end; the file outside keeps its bytes and no dangling target is created. Recorded (not
 * asserted): serve's own largest event-loop delay (GPUFLOW_SERVE_LOOP_STATS, printed when it
 * stops), the largest latency of a probe request (GET /api/devices every 25 ms: what a client
 * saw), serve's peak RSS (VmHWM), the counts by status.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { figures, prng, SOAK, seedDoc, startServe, tempDir, type Rng, type Serving } from './helpers';

const COUNT = SOAK ? 4000 : 400;
const VICTIM = 'outside: must not change\n';
let s: Serving;
let dir: string;
let outside: string;
let sock: net.Server;

beforeAll(async () => {
  dir = tempDir('gpuflow-fuzz-');
  outside = tempDir('gpuflow-fuzz-outside-');
  writeFileSync(path.join(outside, 'victim'), VICTIM);
  for (const f of ['fifo.npy', 'fifo.csv', 'fifo.parquet']) execFileSync('mkfifo', [path.join(dir, f)]);
  mkdirSync(path.join(dir, 'folder'));
  sock = net.createServer();
  await new Promise<void>((r) => sock.listen(path.join(dir, 'sock'), r));
  symlinkSync(path.join(dir, 'fifo.npy'), path.join(dir, 'link-to-fifo.npy'));
  symlinkSync(path.join(dir, 'folder'), path.join(dir, 'link-to-folder'));
  symlinkSync(path.join(outside, 'victim'), path.join(dir, 'link-outside.npy'));
  symlinkSync(path.join(outside, 'never'), path.join(dir, 'dangling.npy'));
  writeFileSync(path.join(dir, 'ok.csv'), 'a,b\n1,2\n3,4\n');
  mkdirSync(path.join(dir, 'pq'));
  symlinkSync(path.join(outside, 'victim'), path.join(dir, 'pq', 'part.0.parquet'));
  symlinkSync(path.join(outside, 'never-part'), path.join(dir, 'pq', 'part.1.parquet'));
  // A stand-in UI so static answers are 200/404, not "UI not built" (503).
  mkdirSync(path.join(dir, 'ui'));
  writeFileSync(path.join(dir, 'ui/index.html'), '<!doctype html><title>ui</title>');
  s = await startServe(['--virtual-gpus', '1', '--backend', 'js', '--threads', '1', '--db', path.join(dir, 'gpuflow.db')], {
    GPUFLOW_NO_BUNDLE: '1',
    GPUFLOW_RENDERER_DIR: path.join(dir, 'ui'),
    GPUFLOW_SERVE_LOOP_STATS: '1',
    GPUFLOW_ALLOWED_DIRS: `${dir}:/dev:/proc`,
  });
}, 90_000);

afterAll(async () => {
  await s?.stop();
  sock?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const FILE_PATHS = (): string[] => [
  ...['fifo.npy', 'fifo.csv', 'fifo.parquet', 'folder', 'sock', 'link-to-fifo.npy', 'link-to-folder', 'link-outside.npy', 'dangling.npy', 'ok.csv', 'missing.npy', 'pq', 'pq/part.0.parquet', 'pq/part.*.parquet', '*'].map((f) => path.join(dir, f)),
  '/dev/zero', '/dev/null', '/dev/urandom', '/dev/stdin', '/dev/fd/0', '/dev/tty', '/dev/shm',
  '/proc/self/mem', '/proc/self/environ', '/proc/self/fd/0', '/proc/self/fd/1', '/proc/kmsg', '/proc/self/cwd', '/proc/1/root/etc/passwd', '/proc/self/task',
];

type Req = { kind: string; method: string; route: string; headers: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> };

function randomJson(r: Rng, depth = 0): unknown {
  const k = r.int(depth > 6 ? 4 : 7);
  if (k === 0) return r.int(1e6) - 5e5;
  if (k === 1) return r.pick(['', 'x', '$N', '__proto__', 'constructor', '../../etc/passwd', '\u0000', 'é'.repeat(r.int(50))]);
  if (k === 2) return r.chance(0.5);
  if (k === 3) return null;
  if (k === 4) return Array.from({ length: r.int(5) }, () => randomJson(r, depth + 1));
  return Object.fromEntries(Array.from({ length: r.int(5) }, (_, i) => [r.pick(['doc', 'params', 'nodes', 'edges', 'op', 'path', `k${i}`, '__proto__']), randomJson(r, depth + 1)]));
}

function fileDoc(r: Rng): unknown {
  const op = r.pick(['load_npy', 'read_csv', 'read_parquet', 'save_npy', 'write_parquet']);
  const p = r.pick(FILE_PATHS());
  const params: Record<string, unknown> = { path: p };
  if (op === 'load_npy') params.chunks = [r.int(4) + 1];
  return { doc: { format: 'gpuflow.workflow/1', nodes: [{ id: 'n', op, params }], edges: [] } };
}

function body(r: Rng): string | Uint8Array<ArrayBuffer> {
  switch (r.int(9)) {
    case 0:
      return JSON.stringify(randomJson(r));
    case 1:
      return `${'['.repeat(50 + r.int(5000))}1${']'.repeat(r.int(3) === 0 ? 0 : 50)}`;
    case 2:
      return JSON.stringify({ doc: seedDoc(), params: { x: Array.from({ length: r.int(200_000) }, () => 0) } });
    case 3: {
      const t = JSON.stringify(fileDoc(r));
      return t.slice(0, r.int(t.length));
    }
    case 4:
      return Uint8Array.from({ length: r.int(2000) }, () => r.int(256));
    case 5:
      return r.chance(0.1) ? `{"x":"${'a'.repeat(17 * 1024 * 1024)}"}` : JSON.stringify({ doc: seedDoc(), params: { N: r.pick([-1, 0, 1e308, 'x', 3]), chunks: r.pick([0, 1, 2.5, '1']) } });
    default:
      return JSON.stringify(fileDoc(r));
  }
}

function request(r: Rng, token: string): Req {
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const k = r.int(10);
  if (k <= 4) return { kind: 'file', method: 'POST', route: '/api/validate', headers: auth, body: JSON.stringify(fileDoc(r)) };
  if (k <= 6) return { kind: 'body', method: 'POST', route: r.pick(['/api/validate', '/api/runs', '/api/queue', '/api/bench', '/api/cluster/test']), headers: auth, body: body(r) };
  if (k === 7) {
    const headers: Record<string, string> = { ...auth };
    const h = r.int(7);
    if (h === 0) headers['content-type'] = r.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '', 'application/json; charset=latin1']);
    if (h === 1) headers.authorization = r.pick(['', 'Bearer', `Bearer ${token}x`, `Basic ${token}`, 'Bearer ' + 'a'.repeat(8000)]);
    if (h === 2) headers.origin = r.pick(['http://evil.example', 'null', `http://127.0.0.1:1`, 'http://[']);
    if (h === 3) headers['sec-fetch-site'] = r.pick(['cross-site', 'same-site', 'none', '?']);
    if (h === 4) headers.cookie = r.pick(['gpuflow_token=%E0%A4%A', `gpuflow_token_${s.port}=${token}`, ';;;=', 'a'.repeat(4000)]);
    if (h === 5) headers[`x-${r.int(1000)}`] = 'v'.repeat(r.int(6000));
    if (h === 6) delete headers.authorization;
    return { kind: 'header', method: r.pick(['GET', 'POST', 'PUT', 'DELETE']), route: r.pick(['/api/validate', '/api/runs', '/api/devices', '/api/queue', '/']), headers, body: undefined };
  }
  if (k === 8) {
    const route = r.pick(['/api/nope', '/api/runs/abc', '/api/runs/999999', '/api/runs/1/events', '/api/queue/zz', '/api/workers/none/restart', '/api/compare?a=1&b=x', '/api/runs?limit=-1', '/api/runs?status=%00', '/%2e%2e/%2e%2e/etc/passwd', '/..%2f..%2fetc/passwd', '/index.html%00', '/api/../api/devices', `/${'a'.repeat(r.int(9000))}`]);
    return { kind: 'path', method: r.pick(['GET', 'POST', 'DELETE']), route, headers: auth, body: undefined };
  }
  // A small write_parquet run into the folder whose parts are links to a file outside.
  const doc = { format: 'gpuflow.workflow/1', nodes: [{ id: 'ts', op: 'timeseries', params: { partitions: 2, rows_per_partition: 10, seed: r.int(100) } }, { id: 'w', op: 'write_parquet', params: { path: path.join(dir, 'pq') } }], edges: [{ source: 'ts', sourcePort: 'out', target: 'w', targetPort: 'df' }] };
  return { kind: 'write', method: 'POST', route: '/api/runs', headers: auth, body: JSON.stringify({ doc }) };
}

/** The answer's status and text; -1 when none came in 30 s, -2 when the connection failed. */
async function send(q: Req): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(`${s.base}${q.route}`, { method: q.method, headers: q.headers, body: q.method === 'GET' ? undefined : q.body, signal: AbortSignal.timeout(30_000) });
    return { status: res.status, text: await res.text() };
  } catch (e) {
    return { status: (e as Error).name === 'TimeoutError' ? -1 : -2, text: String(e) };
  }
}

/** Polls GET /api/devices every 25 ms on one keep-alive connection; the largest answer time. */
function probe(): { stop(): Promise<{ maxMs: number; count: number }> } {
  let running = true;
  let maxMs = 0;
  let count = 0;
  const loop = (async () => {
    while (running) {
      const a = performance.now();
      await fetch(`${s.base}/api/devices`, { headers: { authorization: `Bearer ${s.token}` } }).then((x) => x.arrayBuffer());
      maxMs = Math.max(maxMs, performance.now() - a);
      count++;
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { maxMs, count };
    },
  };
}

describe('serve: HTTP fuzzing', () => {
  it(`answers ${COUNT} seeded hostile requests with 2xx/4xx, never 5xx, writes nothing through links, and stays up`, { timeout: SOAK ? 1_800_000 : 300_000 }, async () => {
    const r = prng(29);
    const queue = Array.from({ length: COUNT }, () => request(r, s.token));
    const byStatus: Record<string, number> = {};
    const byKind: Record<string, Record<string, number>> = {};
    const bad: string[] = [];
    let fileKindRefusals = 0;
    const started = performance.now();
    const p = probe();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < queue.length) {
          const q = queue[next++];
          const { status, text } = await send(q);
          if (q.kind === 'file' && /not a regular file/.test(text)) fileKindRefusals++;
          byStatus[status] = (byStatus[status] ?? 0) + 1;
          (byKind[q.kind] ??= {})[status] = (byKind[q.kind][status] ?? 0) + 1;
          if (status < 200 || status >= 500 || (status >= 300 && status < 400)) bad.push(`${status} ${q.kind} ${q.method} ${q.route.slice(0, 80)} ${typeof q.body === 'string' ? q.body.slice(0, 160) : ''}`);
        }
      }),
    );
    const wallMs = performance.now() - started;
    const stall = await p.stop();
    // Runs may still be writing their parts: wait for the queue to drain before looking outside.
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const res = await fetch(`${s.base}/api/runs?status=running`, { headers: { authorization: `Bearer ${s.token}` } });
      if (((await res.json()) as unknown[]).length === 0) break;
      await new Promise((res2) => setTimeout(res2, 200));
    }
    const peakKiB = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'))?.[1] ?? 0);
    const writtenThroughLinks = (readFileSync(path.join(outside, 'victim'), 'utf8') === VICTIM ? 0 : 1) + readdirSync(outside).filter((f) => f !== 'victim').length;
    expect(bad).toEqual([]);
    expect(writtenThroughLinks).toBe(0);
    expect(existsSync(path.join(outside, 'never'))).toBe(false);
    expect((await fetch(`${s.base}/api/devices`, { headers: { authorization: `Bearer ${s.token}` } })).status).toBe(200);
    await s.stop();
    const loopMax = /loop delay max ([\d.]+) ms, p99 ([\d.]+) ms/.exec(s.stderr());
    figures('http-fuzz', { requests: COUNT, byStatus, byKind, fileKindRefusals, wallMs: Math.round(wallMs), serveLoopDelayMaxMs: Number(loopMax?.[1] ?? NaN), serveLoopDelayP99Ms: Number(loopMax?.[2] ?? NaN), probes: stall.count, largestProbeMs: Math.round(stall.maxMs), servePeakRssMiB: Math.round(peakKiB / 1024), writtenThroughLinks, load: readFileSync('/proc/loadavg', 'utf8').split(' ')[0] });
    expect(s.stderr()).not.toMatch(/internal error|FATAL|    at /);
  });
});
