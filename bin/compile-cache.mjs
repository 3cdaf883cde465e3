// V8's compile cache for the command's own modules (Node >= 22.1, module.enableCompileCache): the
// bundles' source is compiled by V8 on every start (an attached run loads about 0.3 MB of it before
// and around its request to serve; docs/performance.md), and a cache kept between commands skips
// that. Called first thing by bin/gpuflow.mjs. Guarded: on a node without it (Node 20, what this
// checkout's engines allow) nothing happens; a cache that cannot be made (a read-only home, a full
// disk) is node's own silent fallback, and a throw is swallowed here: a cache is only ever time.
// node keys each entry by the module's source, so a rebuilt bundle never runs stale code.
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * Where the cache lives: `$XDG_CACHE_HOME/gpuflow/node-compile-cache` (XDG_CACHE_HOME must be
 * absolute, as the XDG spec says), else `~/.cache/gpuflow/node-compile-cache`.
 */
export function compileCacheDir(env = process.env) {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(homedir(), '.cache');
  return path.join(base, 'gpuflow', 'node-compile-cache');
}

/**
 * Enables the cache in `dir` through `moduleApi` (node:module) when node has it; returns the
 * directory asked for, or null when not asked or it threw: no API, GPUFLOW_COMPILE_CACHE=0, or the user chose
 * through node's own NODE_COMPILE_CACHE / NODE_DISABLE_COMPILE_CACHE (node honours those itself).
 */
export function enableCompileCache(moduleApi, env = process.env) {
  if (typeof moduleApi.enableCompileCache !== 'function') return null;
  if (env.GPUFLOW_COMPILE_CACHE === '0' || env.NODE_COMPILE_CACHE !== undefined || env.NODE_DISABLE_COMPILE_CACHE !== undefined) return null;
  try {
    const dir = compileCacheDir(env);
    moduleApi.enableCompileCache(dir);
    return dir;
  } catch {
    // No home directory, or node refused: never a reason to fail a command.
    return null;
  }
}
