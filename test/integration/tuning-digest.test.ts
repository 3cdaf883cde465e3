/**
 * A tuning run's digest covers its result only, never where trials ran (issue 18, item 3): the
 * tuning example on 1 CPU worker and on 1 CPU + 3 virtual GPUs gives one digest, and replaying the
 * single-worker run on four workers matches it. Placement stays in the run's record (task events).
 */
import { describe, expect, it } from 'vitest';
import { runCli, tempDb } from './cli-helpers';

const small = ['--param', 'trials=6', '--param', 'epochs=2', '--param', 'rows=120', '--backend', 'js', '--json'];

describe('tuning digests (CLI)', () => {
  it('the tuning example has one digest on 1 and on 4 workers, and its replay matches', async () => {
    const env = { GPUFLOW_DB: tempDb(), GPUFLOW_NVIDIA_SMI: '/nonexistent' };
    const one = JSON.parse((await runCli(['run', 'examples/tuning-random-search.json', ...small], env, 240_000)).stdout);
    const four = JSON.parse((await runCli(['run', 'examples/tuning-random-search.json', '--virtual-gpus', '3', ...small], env, 240_000)).stdout);
    expect(one.status).toBe('finished');
    expect(four.status).toBe('finished');
    // The four-worker run really spread its trials (else the comparison proves nothing).
    expect(Object.keys(four.tasksPerWorker).length).toBe(4);
    expect(four.results.search.value.leaderboard).toEqual(one.results.search.value.leaderboard);
    expect(four.digest).toBe(one.digest);
    const replay = await runCli(['replay', String(one.storeId), '--virtual-gpus', '3', '--backend', 'js', '--json'], env, 240_000);
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ original: one.storeId, match: true, replayDigest: one.digest });
  }, 600_000);
});
