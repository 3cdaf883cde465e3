import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// CI has nvcc but no GPU: the install step built the addon with CUDA kernels, and here the
// CPU-only variant is built too, so both compile on every CI run.
const require = createRequire(import.meta.url);
const hasNvcc = spawnSync('sh', ['-c', 'command -v nvcc || test -x /usr/local/cuda/bin/nvcc'], { encoding: 'utf8' }).status === 0;

describe('native addon builds', () => {
  it.runIf(hasNvcc && process.env.GPUFLOW_NO_CUDA !== '1')('the install step compiled the CUDA kernels (nvcc is present)', () => {
    const info = JSON.parse(readFileSync('native/build/info.json', 'utf8'));
    expect(info).toMatchObject({ built: true, cuda: true });
  });

  it('builds and loads the CPU-only variant', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-cpu-build-'));
    try {
      const r = spawnSync(process.execPath, ['native/build.mjs', '--out', dir, '--force'], { env: { ...process.env, GPUFLOW_NO_CUDA: '1' }, encoding: 'utf8' });
      expect(r.status).toBe(0);
      const info = JSON.parse(readFileSync(path.join(dir, 'info.json'), 'utf8'));
      expect(info).toMatchObject({ built: true, cuda: false });
      expect(existsSync(path.join(dir, 'gpuflow.node'))).toBe(true);
      const addon = require(path.join(dir, 'gpuflow.node')) as { info(): { cuda: boolean } };
      expect(addon.info().cuda).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
