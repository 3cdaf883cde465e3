/**
 * Where the worker's entry script is: the TypeScript source under tsx (CLI, serve and tests from a
 * checkout), or the bundled `worker.js` beside the built main bundle (electron-vite output).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface WorkerEntry {
  script: string;
  /** Node flags the child needs (tsx's loader for TypeScript sources). */
  execArgv: string[];
}

export function workerEntry(): WorkerEntry {
  const override = process.env.GPUFLOW_WORKER_ENTRY;
  if (override) return { script: override, execArgv: override.endsWith('.ts') ? ['--import', 'tsx'] : [] };
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    return { script: path.resolve(path.dirname(here), '../../worker/main.ts'), execArgv: ['--import', 'tsx'] };
  }
  return { script: path.join(path.dirname(here), 'worker.js'), execArgv: [] };
}
