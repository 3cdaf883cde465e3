// `npm run test:gpu` on the GPU machine: every CUDA op agrees with js (see cuda-checks.ts).
import { describe, expect, it } from 'vitest';
import { createCudaBackend } from '../../worker/kernels/cuda';
import { createNativeCpuBackend } from '../../worker/kernels/native-cpu';
import { runCudaChecks } from './cuda-checks';

describe('cuda backend agrees with js', () => {
  it('passes every check', async () => {
    const cuda = createCudaBackend();
    const cpu = createNativeCpuBackend(4);
    if ('unavailable' in cuda) throw new Error(`cuda unavailable: ${cuda.unavailable}`);
    if ('unavailable' in cpu) throw new Error(`native-cpu unavailable: ${cpu.unavailable}`);
    const results = await runCudaChecks(cuda, cpu);
    expect(results.filter((r) => r.error !== null)).toEqual([]);
    expect(results.length).toBeGreaterThan(100);
  });
});
