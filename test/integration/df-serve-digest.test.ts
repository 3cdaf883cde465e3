/**
 * Issue 18 item 8 through `gpuflow serve`: its workers live across runs, and apache-arrow's
 * dictionary ids in them grow with every table they make, so a digest over IPC bytes differed on
 * every run. examples/dataframe-groupby.json run five times in one serve (1 CPU + 3 virtual GPUs)
 * must store one result digest.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServe, tempDir, type Serving } from '../reliability/helpers';

const doc = JSON.parse(readFileSync('examples/dataframe-groupby.json', 'utf8'));
let s: Serving;

beforeAll(async () => {
  s = await startServe(['--virtual-gpus', '3', '--cpu-workers', '1', '--backend', 'js', '--threads', '1', '--db', path.join(tempDir('gpuflow-df-serve-'), 'gpuflow.db')]);
});
afterAll(async () => {
  await s?.stop();
});

async function runOnce(): Promise<string> {
  const started = await api(s, 'POST', '/api/runs', { doc, params: { rows_per_partition: 300, partitions: 6 } });
  expect(started.status, JSON.stringify(started.json)).toBe(200);
  const id = (started.json as { storeId: number }).storeId;
  for (;;) {
    const r = (await api(s, 'GET', `/api/runs/${id}`)).json as { status: string; resultDigest: string | null; error: string | null };
    if (r.status !== 'running') {
      expect(r.status, r.error ?? '').toBe('done');
      return r.resultDigest!;
    }
    await new Promise((res) => setTimeout(res, 100));
  }
}

describe('dataframe digests in serve', () => {
  it('five runs of the dataframe example in one serve have one digest', async () => {
    const digests: string[] = [];
    for (let i = 0; i < 5; i++) digests.push(await runOnce());
    expect(new Set(digests).size, digests.join(' ')).toBe(1);
  }, 120_000);
});
