import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkflowDoc } from '../../../common/workflow';
import { StoreError } from '../../../main/store';

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(HERE, '../../..');

/** The StoreError that `fn` throws; any other error is rethrown, and no error fails the test. */
export function storeErrorOf(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StoreError) return err;
    throw err;
  }
  throw new Error('expected a StoreError');
}

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'gpuflow-store-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function sampleDoc(name = 'sum of randoms', n = 1000): WorkflowDoc {
  return {
    format: 'gpuflow.workflow/1',
    name,
    params: { N: n },
    nodes: [
      { id: 'gen', op: 'array.random', params: { shape: ['$N'], chunks: [100], seed: 7 } },
      { id: 'sum', op: 'array.sum', params: {} },
    ],
    edges: [{ source: 'gen', sourcePort: 'out', target: 'sum', targetPort: 'in' }],
  };
}

/** Starts a TypeScript fixture under test/integration/store/fixtures with tsx. */
export function spawnFixture(name: string, args: string[], options: { uid?: number; gid?: number } = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(HERE, 'fixtures', name), ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options,
  });
}

/** Resolves with the child's exit code and all its output. */
export function finished(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  return new Promise((res, rej) => {
    child.on('error', rej);
    child.on('close', (code, signal) => res({ code, signal, stdout, stderr }));
  });
}

/** Resolves with the first stdout line that parses as JSON and satisfies `pred`. */
export function waitForLine<T>(child: ChildProcess, pred: (v: T) => boolean): Promise<T> {
  return new Promise((res, rej) => {
    let buf = '';
    let err = '';
    child.stderr?.on('data', (d) => (err += d));
    child.stdout?.on('data', (d) => {
      buf += d;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          const v = JSON.parse(line) as T;
          if (pred(v)) res(v);
        } catch {
          /* not a JSON line */
        }
      }
    });
    child.on('exit', (code) => rej(new Error(`fixture exited (${code}) before the expected line; stderr: ${err}`)));
  });
}
