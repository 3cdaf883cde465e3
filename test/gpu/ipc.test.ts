// `npm run test:gpu` on the GPU machine: CUDA IPC between two GPU workers sharing GPU 0 (ipc-checks.ts).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runIpcChecks } from './ipc-checks';

describe('CUDA IPC between GPU workers', () => {
  it('passes every check', async () => {
    const cli = ['node', fileURLToPath(new URL('../../bin/gpuflow.mjs', import.meta.url))];
    const results = await runIpcChecks({ cli });
    expect(results.filter((r) => r.error !== null)).toEqual([]);
    expect(results.length).toBe(4);
  }, 600_000);
});
