/**
 * `gpuflow show <run-id>` and `gpuflow benchmarks` / `history --benchmarks` (issue 18, item 6),
 * checked against what `gpuflow run --json` and `gpuflow bench --json` reported for the same
 * run and benchmark, through the real bin and an on-disk database.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, tempDb } from './cli-helpers';

const small = ['--param', 'N=1200', '--param', 'chunks=300'];
const env = () => ({ GPUFLOW_DB: tempDb(), GPUFLOW_NVIDIA_SMI: '/nonexistent' });

describe('gpuflow show and benchmarks (CLI, on-disk database)', () => {
  it('show prints a stored run: workflow, status, target, digest, stats and results, as run --json reported them', async () => {
    const e = env();
    const run = JSON.parse((await runCli(['run', 'examples/seed-benchmark.json', '--json', '--backend', 'js', '--virtual-gpus', '1', ...small], e)).stdout);
    expect(run.status).toBe('finished');
    const r = await runCli(['show', String(run.storeId), '--json'], e);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({ id: run.storeId, uuid: run.runId, status: 'done', digest: run.digest, error: null, replayOf: null, params: { N: 1200, chunks: 300 } });
    const doc = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));
    expect(s.workflow.name).toBe(doc.name);
    expect(s.workflow.doc.nodes).toEqual(doc.nodes);
    expect(s.workflow.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(s.target.devices.map((d: { id: string }) => d.id).sort()).toEqual(['cpu0', 'vgpu0']);
    expect(s.stats.tasks).toBe(run.stats.tasks);
    expect(s.stats.transfers.count).toBe(run.stats.transfers.count);
    expect(s.stats.transfers.bytes).toBe(run.stats.transfers.bytes);
    expect(Object.fromEntries(s.stats.workers.map((w: { worker: string; tasks: number }) => [w.worker, w.tasks]))).toEqual(run.tasksPerWorker);
    expect(s.results.total).toEqual(run.results.total);
    expect(s.durationMs).toBeGreaterThanOrEqual(0);

    const text = await runCli(['show', String(run.storeId)], e);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`digest    ${run.digest}`);
    expect(text.stdout).toContain(`status    done`);
    expect(text.stdout).toContain(`total = ${JSON.stringify(run.results.total)}`);

    const missing = await runCli(['show', '999'], e);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no run 999 in/);
    expect((await runCli(['show'], e)).code).toBe(2);
  }, 240_000);

  it('benchmarks and history --benchmarks list stored benchmarks as bench --json saved them; benchmarks <id> shows one', async () => {
    const e = env();
    expect((await runCli(['benchmarks'], e)).stdout).toBe('no benchmarks yet\n');
    const b = JSON.parse((await runCli(['bench', 'examples/seed-benchmark.json', '--repeat', '1', '--warmup', '0', '--json', '--backend', 'js', ...small], e, 240_000)).stdout);
    const { slowdowns: _s, previous: _p, ...record } = b;
    const list = await runCli(['benchmarks', '--json'], e);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([record]);
    expect(JSON.parse((await runCli(['history', '--benchmarks', '--json'], e)).stdout)).toEqual([record]);
    expect(JSON.parse((await runCli(['benchmarks', String(b.id), '--json'], e)).stdout)).toEqual(record);
    // Filtered by workflow name or hash prefix; another name gives none.
    expect(JSON.parse((await runCli(['benchmarks', '--json', '--workflow', record.workflowName], e)).stdout)).toHaveLength(1);
    expect(JSON.parse((await runCli(['benchmarks', '--json', '--workflow', record.workflowHash.slice(0, 8)], e)).stdout)).toHaveLength(1);
    expect(JSON.parse((await runCli(['benchmarks', '--json', '--workflow', 'no such workflow'], e)).stdout)).toEqual([]);
    const text = await runCli(['benchmarks'], e);
    expect(text.stdout).toMatch(new RegExp(`^\\s+${b.id}  \\S+  ${record.workflowName}`));
    const one = await runCli(['benchmarks', String(b.id)], e);
    expect(one.stdout).toMatch(/1 CPU core\s+1 workers\s+median/);
    expect(one.stdout).toMatch(/1 GPU\s+unavailable/);
    expect((await runCli(['benchmarks', '77'], e)).code).toBe(2);
  }, 300_000);
});
