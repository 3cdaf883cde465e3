/**
 * Shared pieces of the reliability suite: a seeded PRNG (so every fuzz run is reproducible from its
 * seed), a figure printer (each test reports what it tried and what happened; docs/reliability.md
 * sums them up), and starting the real `gpuflow` bin (serve / run) as a child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Engine } from '../../main/engine/engine';

export const SOAK = process.env.GPUFLOW_SOAK === '1';
/** Also run the tests that known engine defects (docs/reliability.md) make fail today. */
export const STRICT = process.env.GPUFLOW_RELIABILITY_STRICT === '1';

/** mulberry32: tiny, fast, and good enough to drive a fuzzer. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    chance: (p: number) => next() < p,
  };
}
export type Rng = ReturnType<typeof prng>;

/** Prints one test's figures (and appends them to $GPUFLOW_FIGURES as JSON lines when set). */
export function figures(name: string, data: Record<string, unknown>): void {
  const line = JSON.stringify({ test: name, ...data });
  console.log(`[reliability] ${line}`);
  if (process.env.GPUFLOW_FIGURES) appendFileSync(process.env.GPUFLOW_FIGURES, line + '\n');
}

export const seedDoc = (): Record<string, unknown> => JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));

export function tempDir(prefix = 'gpuflow-rel-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** Whether process `pid` exists (signal 0 probes without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Environment for children: no GPU discovery, so tests behave the same on every machine. */
export const NO_GPU_ENV = { GPUFLOW_NVIDIA_SMI: '/nonexistent/nvidia-smi', GPUFLOW_DEVICES: '' };

export interface Serving {
  child: ChildProcess;
  base: string;
  port: number;
  token: string;
  stderr: () => string;
  stop(): Promise<void>;
}

/** Starts `gpuflow serve` on 127.0.0.1 with an OS-chosen port and waits for its URL line. */
export function startServe(args: string[], env: Record<string, string> = {}, token = 'reliability-token-0123456789'): Promise<Serving> {
  const child = spawn(process.execPath, ['bin/gpuflow.mjs', 'serve', '--port', '0', `--token=${token}`, ...args], {
    env: { ...process.env, ...NO_GPU_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start in 60 s\n${err}`));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`serve exited (${code}) before printing its URL\n${err}`));
    });
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /gpuflow serve: (http:\/\/[^/]+)\/\?token=/.exec(out);
      if (!m) return;
      clearTimeout(t);
      child.removeAllListeners('exit');
      const base = m[1];
      resolve({
        child,
        base,
        port: Number(new URL(base).port),
        token,
        stderr: () => err,
        stop: () =>
          new Promise<void>((r) => {
            if (child.exitCode !== null || child.signalCode !== null) return r();
            const k = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(k);
              r();
            });
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** fetch against a Serving with its token. */
export async function api(s: Serving, method: string, route: string, body?: unknown, raw?: string): Promise<{ status: number; json: unknown; headers: Headers }> {
  const res = await fetch(`${s.base}${route}`, {
    method,
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    /* plain text */
  }
  return { status: res.status, json, headers: res.headers };
}

/** Starts an engine whose workers see `env` (e.g. test-only fault injection, worker/faults.ts), then restores this process's environment. */
export async function startWith(engine: Engine, env: Record<string, string>): Promise<void> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    await engine.start();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
