/**
 * Which Python runs the Dask bridge: `GPUFLOW_PYTHON` when set (used as given, so a wrong path is
 * reported, not silently replaced), else the first of `python3`, `/usr/bin/python3` that imports
 * distributed. The bridge's environment puts <repo>/python on PYTHONPATH and names the directory
 * of libgpuflow_kernels.so in GPUFLOW_CAPI_DIR.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export class DaskSetupError extends Error {
  constructor(
    readonly code: 'no-python' | 'no-distributed' | 'version' | 'unreachable' | 'local-cuda-missing' | 'bridge' | 'bad-target',
    message: string,
  ) {
    super(message);
  }
}

/** The repository root: the folder above main/ holding package.json (source and built layouts). */
export function repoRoot(): string {
  if (process.env.GPUFLOW_ROOT) return process.env.GPUFLOW_ROOT;
  const here = dirname(fileURLToPath(import.meta.url));
  let dir = here;
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'main'))) return dir;
    dir = dirname(dir);
  }
  return resolve(here, '..', '..');
}

/** 'yes', 'no' (runs, lacks distributed) or 'absent' (does not run); finds the module without importing it (fast). */
function hasDistributed(python: string): 'yes' | 'no' | 'absent' {
  const r = spawnSync(python, ['-c', "import importlib.util as u, sys; sys.exit(0 if u.find_spec('distributed') else 3)"], { stdio: 'ignore', timeout: 20_000 });
  return r.status === 0 ? 'yes' : r.status === 3 ? 'no' : 'absent';
}

/** The interpreter to run the bridge with, or a DaskSetupError saying what is missing. */
export function findPython(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GPUFLOW_PYTHON) return env.GPUFLOW_PYTHON;
  const tried: string[] = [];
  for (const p of ['python3', '/usr/bin/python3']) {
    const has = hasDistributed(p);
    if (has === 'yes') return p;
    tried.push(has === 'absent' ? `${p} (not found)` : `${p} (no 'distributed' module)`);
  }
  if (tried.every((t) => t.endsWith('(not found)'))) throw new DaskSetupError('no-python', `no Python found for the Dask bridge (tried ${tried.join(', ')}); install Python 3 with dask and distributed, or set GPUFLOW_PYTHON`);
  throw new DaskSetupError('no-distributed', `no Python with Dask's 'distributed' package (tried ${tried.join(', ')}); install it (pip install "dask[distributed]", or apt install python3-distributed) or set GPUFLOW_PYTHON`);
}

export function bridgeEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const root = repoRoot();
  const py = join(root, 'python');
  return {
    ...env,
    PYTHONPATH: env.PYTHONPATH ? `${py}:${env.PYTHONPATH}` : py,
    GPUFLOW_CAPI_DIR: env.GPUFLOW_CAPI_DIR ?? join(root, 'native', 'build'),
    PYTHONUNBUFFERED: '1',
  };
}
