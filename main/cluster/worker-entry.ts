/**
 * Where the worker's entry script is (worker/boot.ts, which starts a GPU worker's CUDA warm-up and
 * then loads worker/main.ts): the TypeScript source under tsx (CLI, serve and tests from a
 * checkout), or the bundled `worker.js` beside the built main bundle (electron-vite output).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface WorkerEntry {
  script: string;
  /** Node flags the child needs (tsx's loader for TypeScript sources). */
  execArgv: string[];
}

/**
 * tsx's loader as an absolute file URL: a bare `--import tsx` is resolved from the child's working
 * directory, so `gpuflow run` started outside the checkout had every worker fail with "Cannot find
 * package 'tsx'". Resolved from this file, it is the checkout's own tsx wherever the CLI runs.
 */
function tsxLoader(): string[] {
  const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
  return ['--import', pathToFileURL(path.join(path.dirname(pkg), 'dist/loader.mjs')).href];
}

export function workerEntry(): WorkerEntry {
  const override = process.env.GPUFLOW_WORKER_ENTRY;
  if (override) return { script: override, execArgv: override.endsWith('.ts') ? tsxLoader() : [] };
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    return { script: path.resolve(path.dirname(here), '../../worker/boot.ts'), execArgv: tsxLoader() };
  }
  return { script: path.join(path.dirname(here), 'worker.js'), execArgv: [] };
}
