// `npm run test:gpu` on the GPU machine: the CUDA dataframe kernels agree with the js kernels
// (see df-checks.ts). Without the kernels the check list is one failure saying why.
import { describe, expect, it } from 'vitest';
import { dfCuda } from '../../native/df';
import { runDfChecks } from './df-checks';

describe('cuda dataframe kernels agree with js', () => {
  it('passes every check', async () => {
    const results = await runDfChecks(dfCuda());
    expect(results.filter((r) => r.error !== null)).toEqual([]);
    expect(results.length).toBeGreaterThan(25);
  }, 120_000);
});
