/**
 * GET /api/bench/progress lists the benchmarks under way, so a page that loads mid-benchmark can
 * show it (renderer/state/session.ts attachToRunning): the one started is listed with its
 * workflow's name, and the list is empty again once its result is in.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, seedDoc, startServe, tempDir, type Serving } from '../reliability/helpers';

let s: Serving;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  s = await startServe(['--virtual-gpus', '1', '--backend', 'js', '--threads', '1', '--db', path.join(dir, 'gpuflow.db')]);
}, 90_000);

afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('serve: benchmarks under way', () => {
  it('lists a running benchmark by id and workflow name, and forgets it when it ends', async () => {
    expect((await api(s, 'GET', '/api/bench/progress')).json).toEqual([]);
    const started = await api(s, 'POST', '/api/bench', { doc: seedDoc(), params: { N: 400, chunks: 200 }, repeat: 1, warmup: 0 });
    expect(started.status).toBe(200);
    const { benchId } = started.json as { benchId: string };
    const listed = (await api(s, 'GET', '/api/bench/progress')).json as Array<{ benchId: string; workflowName: string; repeat: number; warmup: number }>;
    expect(listed).toEqual([expect.objectContaining({ benchId, workflowName: 'seed benchmark', repeat: 1, warmup: 0 })]);
    await expect.poll(async () => (await api(s, 'GET', '/api/bench/progress')).json, { timeout: 120_000, interval: 500 }).toEqual([]);
  }, 150_000);
});
