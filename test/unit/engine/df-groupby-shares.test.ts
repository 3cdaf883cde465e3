// The groupby tree on several GPU workers (main/engine/ops/df/aggregate.ts treeReduce): partials
// combined per contiguous GPU share, one aggregate over the G share results, so only G - 1 partials
// cross GPUs. Structure checked by hand for 30 partitions on 4 GPUs (shares 8, 7, 8, 7: partition i
// belongs to GPU floor(4 i / 30)); the answer against the one-worker tree's, run on the js kernels.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TaskDef } from '../../../common/tasks';
import { digestOf, loadTableDigests } from '../../../main/api/run-record';
import { localTasks } from '../../helpers/local-tasks';

const doc = JSON.parse(readFileSync('examples/dataframe-groupby.json', 'utf8')) as unknown;
const params = { rows_per_partition: 500 };
const byOp = (tasks: Map<string, TaskDef>, op: string) => [...tasks.values()].filter((t) => t.spec.kind === 'df' && t.spec.op === op);

describe('groupby combined per GPU share', () => {
  it('4 cuda GPU workers: 30 partials in shares 8, 7, 8, 7, one combine each at its share, one aggregate of 4; same table as one worker', async () => {
    const four = await localTasks(doc, params, { gpuShare: { gpus: 4, taskElements: 2 ** 30 }, arrayResource: 'gpu', device: { gpus: 4, bytes: 1e10 } });
    const chunks = byOp(four.compiled.tasks, 'timeseries-groupby-chunk');
    expect(chunks).toHaveLength(30);
    chunks.forEach((t, i) => expect(t.place).toEqual({ share: [i, 30] }));
    const combines = byOp(four.compiled.tasks, 'groupby-combine');
    const share = (g: number) => chunks.filter((_, i) => Math.floor((i * 4) / 30) === g).map((t) => t.key);
    expect([0, 1, 2, 3].map((g) => share(g).length)).toEqual([8, 7, 8, 7]);
    expect(combines.map((t) => [t.deps, t.place])).toEqual([0, 1, 2, 3].map((g) => [share(g), { share: [g, 4] }]));
    const [agg] = byOp(four.compiled.tasks, 'groupby-aggregate');
    expect(agg.deps).toEqual(combines.map((t) => t.key));

    const one = await localTasks(doc, params);
    // One worker: split_every 8 over all 30 (4 combines of 8, 8, 8, 6), not by share.
    expect(byOp(one.compiled.tasks, 'groupby-combine').map((t) => t.deps.length)).toEqual([8, 8, 8, 6]);
    // The sums are added in another order: equal to the digest's 10 digits, as a run's digest compares them.
    await loadTableDigests();
    const digest = async (t: typeof one) => digestOf({ runId: '', status: 'finished', results: await t.results(), stats: { tasks: 0, durationMs: 0, workers: [], transfers: { count: 0, bytes: 0 }, restarts: 0 } });
    expect(await digest(four)).toBe(await digest(one));
  });

  it('a share longer than split_every gets its own tree down to one result', async () => {
    const two = await localTasks(doc, { ...params, partitions: 40 }, { gpuShare: { gpus: 2, taskElements: 2 ** 20 } });
    const combines = byOp(two.compiled.tasks, 'groupby-combine');
    // 20 partials a share: combines of 8, 8, 4, then one of those 3; twice.
    expect(combines.map((t) => t.deps.length)).toEqual([8, 8, 4, 3, 8, 8, 4, 3]);
    expect(byOp(two.compiled.tasks, 'groupby-aggregate')[0].deps).toHaveLength(2);
    // No place without cuda GPU workers (CPU workers keep their part).
    expect(combines.every((t) => t.place === undefined)).toBe(true);
  });

  it('read partitions: the chunk steps run where their partition is (no place), the combines per share', async () => {
    const csv = JSON.parse(readFileSync('examples/csv-stations.json', 'utf8')) as unknown;
    const c = await localTasks(csv, { blocksize: 64 }, { gpuShare: { gpus: 2, taskElements: 2 ** 30 }, arrayResource: 'gpu', device: { gpus: 2, bytes: 1e10 } });
    const chunks = byOp(c.compiled.tasks, 'groupby-chunk');
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((t) => t.place === undefined)).toBe(true);
    const places = byOp(c.compiled.tasks, 'groupby-combine').map((t) => JSON.stringify(t.place));
    expect(new Set(places)).toEqual(new Set([JSON.stringify({ share: [0, 2] }), JSON.stringify({ share: [1, 2] })]));
    expect(byOp(c.compiled.tasks, 'groupby-aggregate')[0].deps).toHaveLength(2);
  });
});
