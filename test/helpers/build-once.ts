/**
 * `electron-vite build` once for every test file that needs out/ (e2e: the renderer; the
 * main-process harness: main, worker and preload too). Files start in parallel: one builds while
 * the others wait on a lock directory (outside out/, which a build empties), then see it fresh.
 * Asynchronous: a build takes minutes on a loaded machine, and a blocked test process misses
 * vitest's RPC deadlines ("Timeout calling onTaskUpdate").
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Builds out/ unless every `outputs` file (relative to the root) is newer than every file under `sources`. */
export async function ensureBuilt(sources: string[], outputs: string[]): Promise<void> {
  const fresh = () => {
    const newest = Math.max(...sources.map((d) => newestMtime(path.join(ROOT, d))));
    return outputs.every((o) => existsSync(path.join(ROOT, o)) && statSync(path.join(ROOT, o)).mtimeMs >= newest);
  };
  if (fresh()) return;
  const lock = path.join(tmpdir(), `gpuflow-renderer-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // A lock older than 10 minutes was left by a killed run.
      if (Date.now() - statSync(lock).mtimeMs > 600_000) rmSync(lock, { recursive: true, force: true });
      else await sleep(250);
    }
  }
  try {
    if (fresh()) return;
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, [path.join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: ROOT, maxBuffer: 64 << 20 }, (err, _out, stderr) =>
        err ? reject(new Error(`electron-vite build failed: ${err.message}\n${stderr}`)) : resolve(),
      ),
    );
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
