import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDb } from './cli-helpers';

const seed = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));

function writeDoc(doc: unknown, raw?: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'wf-')), 'wf.json');
  writeFileSync(file, raw ?? JSON.stringify(doc));
  return file;
}

describe('gpuflow CLI', () => {
  it('devices --json prints a gpus array and, without GPUs, the reason', async () => {
    const r = await runCli(['devices', '--json'], { GPUFLOW_NVIDIA_SMI: '/nonexistent/nvidia-smi' });
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout);
    expect(d.gpus).toEqual([]);
    expect(d.reason).toMatch(/nvidia-smi not found/);
    expect(d.backends.find((b: { name: string }) => b.name === 'js').available).toBe(true);
  });

  it('runs the seed benchmark on 1 CPU + 3 virtual GPUs, every worker busy, with the single-worker sum', async () => {
    const db = tempDb();
    const multi = await runCli(['run', 'examples/seed-benchmark.json', '--virtual-gpus', '3', '--json', '--backend', 'js', '--param', 'N=3000', '--param', 'chunks=500'], { GPUFLOW_DB: db });
    expect(multi.stderr).not.toMatch(/protocol error/);
    expect(multi.code).toBe(0);
    const m = JSON.parse(multi.stdout);
    expect(Object.keys(m.tasksPerWorker).sort()).toEqual(['cpu0', 'vgpu0', 'vgpu1', 'vgpu2']);
    for (const n of Object.values(m.tasksPerWorker)) expect(n).toBeGreaterThan(0);
    expect(m.stats.workers.filter((w: { virtual: boolean }) => w.virtual)).toHaveLength(3);
    const single = JSON.parse((await runCli(['run', 'examples/seed-benchmark.json', '--json', '--backend', 'js', '--param', 'N=3000', '--param', 'chunks=500'], { GPUFLOW_DB: db })).stdout);
    expect(Object.keys(single.tasksPerWorker)).toEqual(['cpu0']);
    // The task graph fixes the order of additions, so placement cannot change a bit of the sum.
    expect(m.results.total.value).toBe(single.results.total.value);
    // 1500 x 1500 kept samples of N(10, 1) + 1: the mean is 11 within a few standard errors.
    expect(m.results.total.value / 1500 ** 2).toBeCloseTo(11, 2);
  });

  it.each([
    ['an unknown op', (d: typeof seed) => (d.nodes[2].op = 'bogus'), /nodes\[2\]\.op \(node 'every_other'\): unknown op 'bogus'/],
    ['a cycle', (d: typeof seed) => d.edges.push({ source: 'total', sourcePort: 'out', target: 'plus1', targetPort: 'x' }), /edges \(node '.+'\): cycle through nodes/],
    ['a wrong port', (d: typeof seed) => (d.edges[0].targetPort = 'y'), /edges\[0\]\.targetPort \(node 'plus1'\): 'scalar_op' has no input 'y'/],
    [
      'a wrong port type',
      (d: typeof seed) => {
        d.nodes.push({ id: 'rows', op: 'filter', params: { expr: 'x > 0' } });
        d.edges.push({ source: 'x', sourcePort: 'out', target: 'rows', targetPort: 'df' });
      },
      /edges\[3\] \(node 'rows'\): wrong port type: x\.out gives array but rows\.df takes dataframe/,
    ],
    ['a missing param', (d: typeof seed) => delete d.nodes[2].params.slices, /nodes\[2\]\.params\.slices \(node 'every_other'\): is required/],
    ['a negative chunk size', (d: typeof seed) => (d.nodes[0].params.chunks = [-1, 10]), /nodes\[0\]\.params\.chunks \(node 'x'\): \[0\] must be positive/],
  ])('refuses %s with the node and field named, exit 2', async (_name, mutate, pattern) => {
    const d = JSON.parse(JSON.stringify(seed));
    mutate(d);
    const r = await runCli(['run', writeDoc(d), '--no-store']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(pattern);
  });

  it('refuses a file that is not JSON at all', async () => {
    const r = await runCli(['run', writeDoc(null, 'this is not json'), '--no-store']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not valid JSON \(line 1, column 1\)/);
  });
});
