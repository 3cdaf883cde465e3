/**
 * The CLI's fast start loads Apache Arrow, the dataframe kernels and the store only when a run
 * needs them, and forks its workers before the engine loads (docs/architecture.md, "Start-up").
 * A CSV workflow through `gpuflow run` needs each of them late: CSV types inferred while
 * compiling (worker/kernels/df/csv-text.ts), a table result (Arrow on first use), its digest
 * (loaded on demand) and the store written at the end. Its digest must be the in-process
 * reference's, and the stored record must carry it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runDigest } from '../../main/api/run-record';
import type { RunResult } from '../../common/results';
import { runLocal } from '../helpers/local-run';
import { runCli, tempDb } from './cli-helpers';

const NO_GPU = { GPUFLOW_NVIDIA_SMI: '/nonexistent/nvidia-smi' };

describe('gpuflow run with late-loaded parts', () => {
  it('a CSV workflow on 1 CPU + 2 virtual GPUs: the reference digest, a table result, the run stored with it', async () => {
    const env = { ...NO_GPU, GPUFLOW_DB: tempDb() };
    const r = await runCli(['run', 'examples/csv-stations.json', '--json', '--param', 'blocksize=2048', '--virtual-gpus', '2'], env, 240_000);
    expect(r.code, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as { status: string; digest: string; storeId: number; results: Record<string, { kind: string; rows?: number }> };
    expect(run.status).toBe('finished');
    expect(Object.values(run.results).map((v) => v.kind)).toContain('table');

    const reference = await runDigest({ results: await runLocal(JSON.parse(readFileSync('examples/csv-stations.json', 'utf8')), { blocksize: 2048 }) } as RunResult);
    expect(run.digest).toBe(reference);

    const shown = await runCli(['show', String(run.storeId), '--json'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: run.storeId, status: 'done', digest: reference });
  });

});
