/**
 * Issue 26's cuts to a trial's rows (generated in their split's order, the fill's draws, the
 * scaler in the addon) changed no result: the two tuning examples give the digests they gave at
 * 754ad0a, before the cuts (recorded there with these commands, --no-attach, one CPU worker).
 * test/unit/tuning/trial-rows.test.ts holds the rows themselves to the bit.
 */
import { describe, expect, it } from 'vitest';
import { finishedDigest, runCli, tempDb } from './cli-helpers';

const env = () => ({ GPUFLOW_DB: tempDb(), GPUFLOW_NVIDIA_SMI: '/nonexistent' });

describe('tuning digests before and after the trial-rows cuts', () => {
  it('the MNIST-shaped example made small, and the random-search example', async () => {
    const mnist = await runCli(['run', 'examples/tuning-mnist-mlp.json', '--param', 'rows=6000', '--param', 'units=64', '--param', 'trials=2', '--param', 'epochs=1', '--no-store', '--no-attach', '--json'], env(), 300_000);
    expect(finishedDigest(mnist)).toBe('37451805e4dfd4335358756db314960e89ba6fafe13f4c4c7719159b905b8f98');
    const random = await runCli(['run', 'examples/tuning-random-search.json', '--no-store', '--no-attach', '--json'], env(), 300_000);
    expect(finishedDigest(random)).toBe('550989d5e52bd870853c4eb51f1f8cce99ee4070a1178f7ce45630bdcef8e970');
  }, 600_000);
});
