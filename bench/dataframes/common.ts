/** Shared bench helpers: timing, machine facts, result files. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RESULTS = join(dirname(fileURLToPath(import.meta.url)), '../results');

export function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}
export function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Median of `reps` timed runs (ms), after one warm-up run. */
export async function timeMs(reps: number, f: () => unknown | Promise<unknown>): Promise<{ median: number; all: number[] }> {
  await f();
  const all: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    await f();
    all.push(performance.now() - t0);
  }
  const s = [...all].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], all };
}

export function machine(): Record<string, unknown> {
  return { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, loadavg: loadavg(), at: new Date().toISOString() };
}

export function save(name: string, result: unknown): string {
  mkdirSync(RESULTS, { recursive: true });
  const path = join(flag('out') ?? RESULTS, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(result, null, 2) + '\n');
  return path;
}
