// `npm run test:gpu` on the GPU machine: device-resident chunks agree with js (resident-checks.ts).
import { describe, expect, it } from 'vitest';
import { loadNative } from '../../native/index';
import { createCudaBackend } from '../../worker/kernels/cuda';
import { runResidentChecks } from './resident-checks';

describe('device-resident chunks on the GPU', () => {
  it('passes every check', async () => {
    const loaded = loadNative();
    const cuda = createCudaBackend();
    if ('unavailable' in loaded) throw new Error(loaded.unavailable);
    if ('unavailable' in cuda) throw new Error(`cuda unavailable: ${cuda.unavailable}`);
    const results = await runResidentChecks(loaded.addon, cuda);
    expect(results.filter((r) => r.error !== null)).toEqual([]);
    expect(results.length).toBe(6);
  });
});
