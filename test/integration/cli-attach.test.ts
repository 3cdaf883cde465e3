/**
 * The warm pool (issue 30): `gpuflow run` hands its run to a real `gpuflow serve` on 127.0.0.1
 * recording into the same database with the same workers, and prints what a local run prints.
 * Oracles: serve's own event stream (a run started in serve's engine shows up there, a local
 * run in another process cannot), and the same workflow run with --no-attach (digest, results,
 * exit code, error text).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { NO_GPU_ENV, startServe, tempDir, type Serving } from '../reliability/helpers';
import { runCli } from './cli-helpers';
import { parseCli } from '../../main/cli/args';
import { workerPoolKey } from '../../main/cli/workers';
// @ts-expect-error a plain ES module of the launcher, without types
import { freshBundles } from '../../bin/bundles.mjs';

const POOL = ['--virtual-gpus', '2', '--cpu-workers', '0', '--backend', 'native-cpu'];
const WF = ['run', 'examples/seed-benchmark.json', '--param', 'N=3000', '--param', 'chunks=500'];

/** Run ids that serve's engine started, read from its event stream. */
function watchRuns(s: Serving): Promise<{ runs: Set<string>; close(): void }> {
  const ws = new WebSocket(`${s.base.replace('http', 'ws')}/api/events?since=live`, { headers: { authorization: `Bearer ${s.token}` } });
  const runs = new Set<string>();
  ws.on('message', (b: Buffer) => {
    // One JSON array of messages per tick (main/api/outbox.ts).
    const batch = JSON.parse(b.toString()) as Array<{ type: string; state?: string; runId?: string }>;
    for (const m of batch) if (m.type === 'run' && m.state === 'started' && m.runId) runs.add(m.runId);
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ runs, close: () => ws.close() }));
    ws.once('error', reject);
  });
}

/** The printed lines without the run's time, id and tasks per worker (they differ between any two runs). */
const stable = (out: string) =>
  out
    .replace(/ in \d+\.\d+ s /, ' in T s ')
    .replace(/; run \S+, digest/, '; run R, digest')
    .replace(/\(virtual\): \d+/g, '(virtual): n');
/** stderr without the workers' own log lines ("[vgpu0 123] ..."): a local run's workers share its terminal, serve's write to serve's. */
const ownLines = (err: string) => err.split('\n').filter((l) => !/^\[\w+ \d+\]/.test(l)).join('\n');

describe('gpuflow run attaches to a running serve', () => {
  const dir = tempDir('gpuflow-attach-');
  const db = path.join(dir, 'gpuflow.db');
  const env = { ...NO_GPU_ENV, GPUFLOW_DB: db };
  let s: Serving;
  beforeAll(async () => {
    s = await startServe([...POOL], env);
  }, 90_000);
  afterAll(async () => {
    await s?.stop();
  });

  it('serve announces itself in <db>.serve.json, mode 0600, naming its pid, and the run goes there', async () => {
    const file = `${db}.serve.json`;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const f = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; origin: string; token: string };
    expect(f.pid).toBe(s.child.pid);
    expect(f.origin).toBe(s.base);
    expect(f.token).toBe(s.token);

    const watch = await watchRuns(s);
    try {
      const attached = await runCli([...WF, ...POOL, '--json'], env);
      expect(attached.stderr).toBe('');
      expect(attached.code).toBe(0);
      const a = JSON.parse(attached.stdout) as { runId: string; storeId: number; digest: string; results: unknown; tasksPerWorker: Record<string, number> };
      expect(watch.runs.has(a.runId)).toBe(true);
      // serve's warm-up at start (main/cli/serve.ts warmRunPath) validated and compiled, recording nothing: this is run 1.
      expect(a.storeId).toBe(1);
      // Both of serve's virtual GPUs took tasks.
      expect(Object.keys(a.tasksPerWorker).sort()).toEqual(['vgpu0', 'vgpu1']);

      const local = await runCli([...WF, ...POOL, '--json', '--no-attach'], env);
      expect(local.code).toBe(0);
      const l = JSON.parse(local.stdout) as { runId: string; storeId: number; digest: string; results: unknown };
      expect(watch.runs.has(l.runId)).toBe(false);
      expect(a.digest).toBe(l.digest);
      expect(a.results).toEqual(l.results);
      // Both recorded in the one database, as two runs.
      expect(l.storeId).toBe(a.storeId + 1);

      // The text output is the local one, line for line, times and ids aside.
      const [at, lt] = await Promise.all([runCli([...WF, ...POOL], env), runCli([...WF, ...POOL, '--no-attach'], env)]);
      expect([at.code, lt.code]).toEqual([0, 0]);
      expect(stable(at.stdout)).toBe(stable(lt.stdout));
      expect(watch.runs.size).toBe(2);
    } finally {
      watch.close();
    }
  }, 180_000);

  it('an attached run exits once its output is flushed (main/cli/exit-now.ts): the whole result and the exit code; a local run ends as before', async () => {
    const traced = { ...env, GPUFLOW_TRACE_START: '1' };
    const [a, l] = [await runCli([...WF, ...POOL, '--json'], traced), await runCli([...WF, ...POOL, '--json', '--no-attach'], traced)];
    expect([a.code, l.code]).toEqual([0, 0]);
    expect(a.stderr).toMatch(/^gpuflow-trace \S+ attach-run-started /m);
    // The exit path taken, after the command's end and before node's 'exit' event.
    const labels = (err: string) => err.split('\n').flatMap((x) => (x.startsWith('gpuflow-trace ') ? [x.split(' ')[2]] : []));
    expect(labels(a.stderr).slice(-3)).toEqual(['cli-done', 'exit-now', 'exit']);
    expect(labels(l.stderr)).not.toContain('exit-now');
    // Everything printed: the JSON whole, the same answer as the local run.
    const [ar, lr] = [JSON.parse(a.stdout) as { digest: string; results: unknown }, JSON.parse(l.stdout) as { digest: string; results: unknown }];
    expect(ar.digest).toBe(lr.digest);
    expect(ar.results).toEqual(lr.results);
    // The text output too, ending with its summary line.
    const t = await runCli([...WF, ...POOL], env);
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^total = .*\n\d+ tasks in .* digest [0-9a-f]{12}\n$/);
  }, 180_000);

  it('Ctrl-C cancels the run on serve: exit 1, the local run\'s message, serve goes on', async () => {
    const ws = new WebSocket(`${s.base.replace('http', 'ws')}/api/events?since=live`, { headers: { authorization: `Bearer ${s.token}` } });
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    const child = spawn(process.execPath, ['bin/gpuflow.mjs', 'run', 'examples/seed-benchmark.json', '--param', 'N=40000', '--param', 'chunks=250', ...POOL], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    // The first task of the run on serve: the run is under way there.
    await new Promise<void>((r) => ws.on('message', (b: Buffer) => (JSON.parse(b.toString()) as Array<{ type: string }>).some((m) => m.type === 'task') && r()));
    ws.close();
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    // What a local run prints on Ctrl-C (the engine prefixes the reason with 'cancelled: ').
    expect(stderr).toMatch(/^run cancelled: cancelled: interrupted \(SIGINT\)\n/);
    // serve is still there and takes the next run.
    const again = await runCli([...WF, ...POOL, '--json'], env);
    expect(again.code).toBe(0);
  }, 180_000);

  /** `args` run attached and with --no-attach: both exit 2 with the same message, which matches `message`; serve starts no run. */
  async function refusedAlike(args: string[], message: RegExp): Promise<void> {
    const watch = await watchRuns(s);
    try {
      const attached = await runCli(args, env);
      const local = await runCli([...args, '--no-attach'], env);
      expect(local.code).toBe(2);
      expect(local.stderr).toMatch(message);
      expect([attached.code, attached.stderr]).toEqual([2, local.stderr]);
      expect(watch.runs.size).toBe(0);
    } finally {
      watch.close();
    }
  }

  it('an invalid workflow: serve refuses it (this process does not validate it first), printed as a local refusal, exit 2', async () => {
    await refusedAlike(['run', 'examples/seed-benchmark.json', '--param', 'N=-3', ...POOL, '--json'], /^invalid workflow:\n {2}nodes\[0\]\.params\.shape \(node 'x'\): /);
  }, 180_000);

  it('a workflow file that is not JSON: the line and column a local run names, exit 2, nothing sent to serve', async () => {
    const bad = path.join(dir, 'not-json.json');
    writeFileSync(bad, '{\n  "format": oops\n}\n');
    await refusedAlike(['run', bad, ...POOL], /not valid JSON \(line 2, column \d+\)/);
  }, 180_000);

  it('an attached run loads no engine, worker, store or cluster module, nor fetch\'s undici, ws or zod\'s full API (the local run loads the engine and zod\'s full API: the oracle)', async () => {
    // V8's coverage lists every script the process compiled; the sources run under tsx so each
    // module is named by its own path.
    const loaded = async (extra: string[]) => {
      const cov = tempDir('gpuflow-attach-cov-');
      const r = await runCli([...WF, ...POOL, ...extra], { ...env, GPUFLOW_NO_BUNDLE: '1', NODE_V8_COVERAGE: cov, GPUFLOW_TRACE_START: '1' });
      expect(r.code).toBe(0);
      // The command's own process: the one whose trace says it ran the CLI (a local run's workers write theirs too).
      const pid = /^gpuflow-trace pid(\d+) cli /m.exec(r.stderr)?.[1];
      // coverage-<pid>-<time>-<thread id>.json: thread 0 is the main thread (tsx's loader runs on another).
      const file = readdirSync(cov).find((f) => f.startsWith(`coverage-${pid}-`) && f.endsWith('-0.json'));
      if (!file) throw new Error(`no coverage file of pid ${pid} in ${cov}: ${readdirSync(cov).join(', ')}`);
      // This checkout's files by path from its root, packages as node_modules/<name>/... (node_modules
      // may be a link elsewhere), node's own modules left out.
      const root = `${pathToFileURL(process.cwd()).href}/`;
      const named = (u: string) => (u.includes('/node_modules/') ? `node_modules/${u.slice(u.lastIndexOf('/node_modules/') + 14)}` : u.startsWith(root) ? u.slice(root.length) : null);
      const all = (JSON.parse(readFileSync(path.join(cov, file), 'utf8')) as { result: Array<{ url: string }> }).result.map((x) => x.url);
      return { attached: /attach-run-started/.test(r.stderr), urls: all.flatMap((u) => named(u) ?? []), all };
    };
    const heavy = /^(main\/engine\/(?!errors\.ts|json-text\.ts)|worker\/|main\/store\/(?!default-path\.ts)|main\/cluster\/|node_modules\/(better-sqlite3|@tensorflow|@duckdb|apache-arrow)\/)/;
    const a = await loaded([]);
    expect(a.attached).toBe(true);
    expect(a.urls.filter((u) => heavy.test(u))).toEqual([]);
    expect(a.urls.some((u) => u === 'main/cli/attach.ts')).toBe(true);
    // Its HTTP calls go through node:http: fetch would load undici first (about 30 ms of its start).
    expect(a.all.filter((u) => u.includes('undici'))).toEqual([]);
    // Its schemas are zod/mini's: the full API (zod/v4/classic, about 10 ms of its start) is not loaded.
    expect(a.urls.filter((u) => u.startsWith('node_modules/zod/v4/classic/'))).toEqual([]);
    expect(a.urls.some((u) => u.startsWith('node_modules/zod/v4/mini/'))).toBe(true);
    // One streamed HTTP answer carries the run (main/api/attached-run.ts): no WebSocket client.
    expect(a.urls.filter((u) => u.startsWith('node_modules/ws/'))).toEqual([]);
    const l = await loaded(['--no-attach']);
    expect(l.urls.some((u) => u.startsWith('node_modules/zod/v4/classic/'))).toBe(true);
    expect(l.attached).toBe(false);
    expect(l.urls.some((u) => u === 'main/engine/engine.ts')).toBe(true);
    expect(l.urls.some((u) => u.startsWith('node_modules/better-sqlite3/'))).toBe(true);
  }, 180_000);

  // bin/build-bundles.mjs builds the serve file's reader and the run's message schemas apart, with a
  // chunk of their own carrying only the part of zod/mini they use, not the CLI's shared zod chunk.
  it.skipIf(freshBundles(process.cwd()) === null)('with the bundles, an attached run loads zod only in the standalone chunk of its schemas (a local run loads the shared zod chunk: the oracle)', async () => {
    /** The out/cli files the command's main thread loaded that hold zod's core. */
    const zodFiles = async (extra: string[]) => {
      const cov = tempDir('gpuflow-attach-zod-');
      const r = await runCli([...WF, ...POOL, ...extra], { ...env, NODE_V8_COVERAGE: cov, GPUFLOW_TRACE_START: '1' });
      expect(r.code).toBe(0);
      const pid = /^gpuflow-trace pid(\d+) cli /m.exec(r.stderr)?.[1];
      const file = readdirSync(cov).find((f) => f.startsWith(`coverage-${pid}-`) && f.endsWith('-0.json'));
      if (!file) throw new Error(`no coverage file of pid ${pid} in ${cov}: ${readdirSync(cov).join(', ')}`);
      const out = `${pathToFileURL(path.resolve('out/cli')).href}/`;
      const urls = (JSON.parse(readFileSync(path.join(cov, file), 'utf8')) as { result: Array<{ url: string }> }).result.map((x) => x.url).filter((u) => u.startsWith(out));
      // esbuild names each bundled package file in a comment: `// <path>/node_modules/zod/v4/core/schemas.js`.
      return { attached: /attach-run-started/.test(r.stderr), zod: urls.filter((u) => /node_modules\/zod\/v4\/core\//.test(readFileSync(fileURLToPath(u), 'utf8'))).map((u) => u.slice(out.length)).sort() };
    };
    const a = await zodFiles([]);
    expect(a.attached).toBe(true);
    expect(a.zod).toHaveLength(1);
    expect(a.zod[0]).toMatch(/^standalone-\w+\.mjs$/);
    const l = await zodFiles(['--no-attach']);
    expect(l.attached).toBe(false);
    expect(l.zod.some((f) => f.startsWith('chunk-'))).toBe(true);
  }, 180_000);

  // bin/gpuflow.mjs asks the bundle's small entry (out/cli/early.mjs, main/cli/early.ts) before it
  // starts nvidia-smi early; without a bundle it starts it as before.
  it.skipIf(!existsSync('out/cli/early.mjs'))('an attached run starts no early nvidia-smi; a local run does (the oracle)', async () => {
    const dir = tempDir('gpuflow-attach-smi-');
    const marks = path.join(dir, 'asked');
    const smi = path.join(dir, 'nvidia-smi');
    // A stand-in that notes each call and lists no GPU.
    writeFileSync(smi, `#!/bin/sh\necho asked >> '${marks}'\n`);
    chmodSync(smi, 0o755);
    const asked = () => (existsSync(marks) ? readFileSync(marks, 'utf8').split('\n').filter(Boolean).length : 0);
    const a = await runCli([...WF, ...POOL, '--json'], { ...env, GPUFLOW_NVIDIA_SMI: smi, GPUFLOW_TRACE_START: '1' });
    expect(a.code).toBe(0);
    expect(a.stderr).toMatch(/attach-run-started/);
    expect(asked()).toBe(0);
    const l = await runCli([...WF, ...POOL, '--json', '--no-attach'], { ...env, GPUFLOW_NVIDIA_SMI: smi });
    expect(l.code).toBe(0);
    expect(asked()).toBeGreaterThan(0);
  }, 180_000);

  it('another worker set, or another database, runs here', async () => {
    const watch = await watchRuns(s);
    try {
      const other = await runCli([...WF, '--virtual-gpus', '1', '--cpu-workers', '0', '--backend', 'native-cpu', '--json'], env);
      expect(other.code).toBe(0);
      const otherDb = await runCli([...WF, ...POOL, '--json', '--db', path.join(dir, 'other.db')], env);
      expect(otherDb.code).toBe(0);
      expect(watch.runs.size).toBe(0);
    } finally {
      watch.close();
    }
  }, 180_000);
});

describe('what is not a warm serve is ignored', () => {
  it('a file naming a dead pid: the run is local and says nothing about it', async () => {
    const dir = tempDir('gpuflow-attach-stale-');
    const db = path.join(dir, 'gpuflow.db');
    const dead = spawn(process.execPath, ['-e', '0']);
    const pid = await new Promise<number>((r) => dead.once('exit', () => r(dead.pid!)));
    const file = `${db}.serve.json`;
    const pool = workerPoolKey(parseCli(POOL).values, NO_GPU_ENV);
    writeFileSync(file, JSON.stringify({ format: 'gpuflow.serve/1', pid, origin: 'http://127.0.0.1:9', token: 'x'.repeat(24), pool, cwd: process.cwd(), allowedDirs: null }), { mode: 0o600 });
    const r = await runCli([...WF, ...POOL, '--json'], { ...NO_GPU_ENV, GPUFLOW_DB: db });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(file)).toBe(true);

    // The same file readable by others is not trusted (its token may have leaked), and says why.
    chmodSync(file, 0o644);
    const open = await runCli([...WF, ...POOL, '--json'], { ...NO_GPU_ENV, GPUFLOW_DB: db });
    expect(open.code).toBe(0);
    expect(open.stderr).toMatch(/not attaching to serve: .*serve\.json is readable by others \(mode 644\)/);
  }, 120_000);

  it('a live serve that cannot be reached: the run starts here, saying why', async () => {
    const dir = tempDir('gpuflow-attach-gone-');
    const db = path.join(dir, 'gpuflow.db');
    const pool = workerPoolKey(parseCli(POOL).values, NO_GPU_ENV);
    // Our own pid is alive; nothing listens on port 9 (discard) of 127.0.0.1 here.
    writeFileSync(`${db}.serve.json`, JSON.stringify({ format: 'gpuflow.serve/1', pid: process.pid, origin: 'http://127.0.0.1:9', token: 'x'.repeat(24), pool, cwd: process.cwd(), allowedDirs: null }), { mode: 0o600 });
    const r = await runCli([...WF, ...POOL, '--json'], { ...NO_GPU_ENV, GPUFLOW_DB: db });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^gpuflow: running here: cannot reach serve at http:\/\/127\.0\.0\.1:9/);
    expect((JSON.parse(r.stdout) as { status: string }).status).toBe('finished');
  }, 120_000);
});

describe('a serve that answers otherwise', () => {
  /** A stand-in serve on 127.0.0.1 answering POST /api/runs/attached with `answer`, announced beside a fresh database. */
  async function standIn(answer: (res: http.ServerResponse) => void): Promise<{ db: string; close: () => void }> {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => answer(res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const db = path.join(tempDir('gpuflow-attach-stand-in-'), 'gpuflow.db');
    const pool = workerPoolKey(parseCli(POOL).values, NO_GPU_ENV);
    writeFileSync(`${db}.serve.json`, JSON.stringify({ format: 'gpuflow.serve/1', pid: process.pid, origin: `http://127.0.0.1:${port}`, token: 'x'.repeat(24), pool, cwd: process.cwd(), allowedDirs: null }), { mode: 0o600 });
    return { db, close: () => server.close() };
  }

  it('a serve without the attached route (another version, 404): the run starts here, saying why', async () => {
    const s = await standIn((res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'no such route' }));
    });
    try {
      const r = await runCli([...WF, ...POOL, '--json'], { ...NO_GPU_ENV, GPUFLOW_DB: s.db });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/^gpuflow: running here: serve at http:\/\/127\.0\.0\.1:\d+ did not take the run \(HTTP 404: no such route\)/);
      expect((JSON.parse(r.stdout) as { status: string }).status).toBe('finished');
    } finally {
      s.close();
    }
  }, 120_000);

  it('a connection lost after the run started there: exit 1 naming the run, nothing run here', async () => {
    const s = await standIn((res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(`${JSON.stringify({ type: 'started', runId: 'r-1', storeId: 41 })}\n`);
      setTimeout(() => res.destroy(), 50);
    });
    try {
      const r = await runCli([...WF, ...POOL, '--json'], { ...NO_GPU_ENV, GPUFLOW_DB: s.db });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/gpuflow: lost the connection to serve at http:\/\/127\.0\.0\.1:\d+ during run 41 \(serve goes on recording it: gpuflow history\)/);
      expect(r.stdout).toBe('');
    } finally {
      s.close();
    }
  }, 120_000);
});

describe('a failing run attached', () => {
  it('exits 1 with the local run’s error text; serve removes its file when it stops', async () => {
    const dir = tempDir('gpuflow-attach-fail-');
    const db = path.join(dir, 'gpuflow.db');
    const one = ['--virtual-gpus', '1', '--cpu-workers', '0', '--backend', 'native-cpu'];
    const env = { ...NO_GPU_ENV, GPUFLOW_DB: db, GPUFLOW_FAULT_KERNEL_ERROR_AFTER: 'vgpu0:0' };
    const s = await startServe(one, env);
    try {
      const watch = await watchRuns(s);
      const [attached, local] = [await runCli([...WF, ...one], env), await runCli([...WF, ...one, '--no-attach'], env)];
      watch.close();
      expect(watch.runs.size).toBe(1);
      expect(attached.code).toBe(1);
      expect(local.code).toBe(1);
      expect(attached.stderr).toMatch(/^run failed: /);
      expect(attached.stderr).toBe(ownLines(local.stderr));
      expect(stable(attached.stdout)).toBe(stable(local.stdout));
    } finally {
      await s.stop();
    }
    expect(existsSync(`${db}.serve.json`)).toBe(false);
  }, 180_000);
});
