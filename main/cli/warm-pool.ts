/**
 * Whether `gpuflow run` may hand its run to a warm serve (main/cli/attach.ts says when and how).
 * Asked by main/cli.ts before it forks any worker, so it costs one stat when no serve announced
 * itself; the file's reader (zod) loads only when there is a file.
 */
import { existsSync } from 'node:fs';
import type { ServeFile } from '../api/serve-file';
import { defaultDbPath, serveFilePath } from '../store/default-path';
import { UsageError, type Parsed } from './args';
import { workerPoolKey } from './workers';

/**
 * The serve file a run with these options would attach through, when one is there; null when the
 * run may not attach (`--no-attach`, `--dask`, `--no-store`, GPUFLOW_ATTACH=0) or no serve
 * announced itself beside its database. One stat: bin/gpuflow.mjs asks it too (main/cli/early.ts).
 */
export function serveFileFor(opts: Parsed['values'], env: NodeJS.ProcessEnv = process.env): string | null {
  if (opts['no-attach'] || opts.dask !== undefined || opts['no-store'] || env.GPUFLOW_ATTACH === '0') return null;
  const path = serveFilePath(opts.db ?? env.GPUFLOW_DB ?? defaultDbPath(undefined, env));
  return existsSync(path) ? path : null;
}

export async function findWarmPool(opts: Parsed['values'], env: NodeJS.ProcessEnv = process.env): Promise<ServeFile | null> {
  const path = serveFileFor(opts, env);
  if (path === null) return null;
  let pool: string;
  try {
    pool = workerPoolKey(opts, env);
  } catch (e) {
    if (e instanceof UsageError) return null; // the command reports it
    throw e;
  }
  const { readServeFile } = await import('../api/serve-file');
  const { file, skip } = readServeFile(path);
  if (skip) process.stderr.write(`gpuflow: not attaching to serve: ${skip}\n`);
  return file && file.pool === pool ? file : null;
}

/** A warm pool found (its run goes there in one request: main/cli/attach.ts). */
export interface WarmPool {
  file: ServeFile;
}
