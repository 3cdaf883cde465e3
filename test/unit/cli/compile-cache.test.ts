/**
 * bin/compile-cache.mjs: V8's compile cache for the command's modules where node has one
 * (module.enableCompileCache, Node >= 22.1). The guard is checked with a stand-in for node:module
 * (this machine's node 20 has none); the real bin is run with its home and cache pointed at scratch
 * folders: nothing is written outside the cache folder (on node 20: nothing at all), and a cache
 * that cannot be made changes neither the output nor the exit code.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileCacheDir, enableCompileCache } from '../../../bin/compile-cache.mjs';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function scratch(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'gpuflow-ccache-'));
  dirs.push(d);
  return d;
}

/** A stand-in node:module that records the folders it was asked for, or throws. */
function fakeModule(fail = false) {
  const asked: unknown[] = [];
  return {
    asked,
    enableCompileCache(dir: unknown) {
      asked.push(dir);
      if (fail) throw new Error('EACCES');
      return { status: 0 };
    },
  };
}

describe('the compile cache guard', () => {
  it('asks node for a folder under the user cache directory', () => {
    const m = fakeModule();
    expect(enableCompileCache(m, { XDG_CACHE_HOME: '/home/u/.cache-x' })).toBe('/home/u/.cache-x/gpuflow/node-compile-cache');
    expect(m.asked).toEqual(['/home/u/.cache-x/gpuflow/node-compile-cache']);
    // A relative XDG_CACHE_HOME is ignored (the XDG spec): ~/.cache.
    expect(compileCacheDir({ XDG_CACHE_HOME: 'rel/cache' })).toBe(path.join(homedir(), '.cache', 'gpuflow', 'node-compile-cache'));
  });

  it('does nothing on a node without the API, when opted out, or when the user set node up', () => {
    expect(enableCompileCache({}, {})).toBeNull();
    for (const env of [{ GPUFLOW_COMPILE_CACHE: '0' }, { NODE_COMPILE_CACHE: '/somewhere' }, { NODE_DISABLE_COMPILE_CACHE: '1' }]) {
      const m = fakeModule();
      expect(enableCompileCache(m, env)).toBeNull();
      expect(m.asked).toEqual([]);
    }
  });

  it('swallows a refusal: the command goes on without a cache', () => {
    const m = fakeModule(true);
    expect(enableCompileCache(m, { XDG_CACHE_HOME: '/nowhere' })).toBeNull();
    expect(m.asked).toHaveLength(1);
  });
});

describe('the bin with a compile cache', () => {
  const run = (env: Record<string, string>) => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('NODE_COMPILE') && !k.startsWith('NODE_DISABLE_COMPILE') && k !== 'GPUFLOW_COMPILE_CACHE'),
    );
    return spawnSync(process.execPath, ['bin/gpuflow.mjs', 'run', '--help'], { env: { ...clean, ...env }, encoding: 'utf8' });
  };
  const hasApi = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';

  it('writes only under <cache>/gpuflow/node-compile-cache (nothing on a node without the API)', () => {
    const home = scratch();
    const cache = path.join(home, 'cache');
    const r = run({ HOME: home, XDG_CACHE_HOME: cache });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('gpuflow run <workflow.json>');
    if (hasApi) {
      expect(readdirSync(home)).toEqual(['cache']);
      expect(readdirSync(cache)).toEqual(['gpuflow']);
      expect(readdirSync(path.join(cache, 'gpuflow'))).toEqual(['node-compile-cache']);
      expect(readdirSync(path.join(cache, 'gpuflow', 'node-compile-cache')).length).toBeGreaterThan(0);
    } else {
      expect(readdirSync(home)).toEqual([]);
    }
  });

  it('a cache that cannot be made changes neither the output nor the exit code', () => {
    const home = scratch();
    // The cache's parent is a file: no folder can be made there.
    const blocked = path.join(home, 'blocked');
    writeFileSync(blocked, '');
    const normal = run({ HOME: scratch(), XDG_CACHE_HOME: path.join(scratch(), 'c') });
    const r = run({ HOME: home, XDG_CACHE_HOME: blocked });
    expect(r.status).toBe(normal.status);
    expect(r.stdout).toBe(normal.stdout);
    expect(r.stderr).toBe(normal.stderr);
    expect(readdirSync(home)).toEqual(['blocked']);
  });
});
