// Coarser chunk tasks for GPU workers (main/engine/compile/coarsen.ts) and their placement by
// device kind and contiguous share (placement.ts): the seed workload's reduction on 4 GPU
// workers merges neighbouring chunks, keeps at least TASKS_PER_GPU tasks a GPU, marks its
// programs and combines GPU-only, and gives the same total as the uncoarsened graph (js kernels
// in this process, test/helpers/local-run.ts): the oracle is the graph the CPU runs.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { digestOf } from '../../../main/api/run-record';
import type { RunResult } from '../../../common/results';
import { CPU_BACKED_TASK_ELEMENTS, GPU_TASK_ELEMENTS, TASKS_PER_GPU, mergeFactors } from '../../../main/engine/compile/coarsen';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { ownerOf } from '../../../main/engine/scheduler/placement';
import { validateWorkflow } from '../../../main/engine/validate';
import { runLocal } from '../../helpers/local-run';

const seed = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8')) as unknown;
const full = JSON.parse(readFileSync('bench/engine-gpu/seed-full.json', 'utf8')) as unknown;
const run = (results: RunResult['results']): RunResult => ({ runId: 'r', status: 'finished', results, stats: { tasks: 0, durationMs: 0, workers: [], transfers: { count: 0, bytes: 0 }, restarts: 0 } });

describe('coarsening for GPU workers', () => {
  it('splits a merge factor over the axes, fewest chunks first, never past an axis', () => {
    expect(mergeFactors([50, 50], 10.7)).toEqual([3, 3]);
    expect(mergeFactors([2, 1000], 100)).toEqual([2, 50]);
    expect(mergeFactors([1, 40], 5.5)).toEqual([1, 5]);
    expect(mergeFactors([50, 50], 1.5)).toEqual([1, 1]);
  });

  it('gives the 2 TB seed workload 3 x 3 chunks a task on four GPUs, within the element cap', () => {
    const c = compileWorkflow(validateWorkflow(full, { N: 500000, chunks: 10000 }), { gpuShare: { gpus: 4, taskElements: GPU_TASK_ELEMENTS }, arrayResource: 'gpu' });
    const programs = [...c.tasks.values()].filter((t) => t.spec.kind === 'program');
    expect(programs.length).toBe(17 * 17);
    for (const t of programs) if (t.spec.kind === 'program') expect(t.spec.program.shape.reduce((a, b) => a * b, 1)).toBeLessThanOrEqual(GPU_TASK_ELEMENTS);
    // Without GPU workers the chunks stay as asked.
    const cpu = compileWorkflow(validateWorkflow(full, { N: 500000, chunks: 10000 }));
    expect([...cpu.tasks.values()].filter((t) => t.spec.kind === 'program').length).toBe(2500);
  });

  it('keeps tasks CPU-sized for GPU workers that run on the CPU (virtual GPUs)', () => {
    const doc = { format: 'gpuflow.workflow/1', nodes: [{ id: 'x', op: 'random_normal', params: { shape: [60000, 60000], chunks: [1000, 1000], seed: 1 } }, { id: 'total', op: 'reduce', params: { op: 'sum' } }], edges: [{ source: 'x', sourcePort: 'out', target: 'total', targetPort: 'x' }] };
    const programs = (taskElements: number) => [...compileWorkflow(validateWorkflow(doc), { gpuShare: { gpus: 2, taskElements }, arrayResource: 'gpu' }).tasks.values()].filter((t) => t.spec.kind === 'program').length;
    // 1e6-element chunks are already at the CPU-backed cap (2^20); a cuda GPU takes 15 x 15 of them.
    expect(programs(CPU_BACKED_TASK_ELEMENTS)).toBe(3600);
    expect(programs(GPU_TASK_ELEMENTS)).toBe(16);
  });

  for (const [name, doc] of [['sliced', seed], ['every sample', full]] as const) {
    it(`${name}: the same total and digest as the CPU graph, GPU-only tasks in contiguous shares`, async () => {
      const params = { N: 2000, chunks: 100 };
      const opts = { gpuShare: { gpus: 3, taskElements: CPU_BACKED_TASK_ELEMENTS }, arrayResource: 'gpu' as const };
      const c = compileWorkflow(validateWorkflow(doc, params), opts);
      const programs = [...c.tasks.values()].filter((t) => t.spec.kind === 'program');
      expect(programs.length).toBeLessThan(400);
      expect(programs.length).toBeGreaterThanOrEqual(3 * TASKS_PER_GPU);
      expect([...c.tasks.values()].every((t) => t.resource === 'gpu' && t.place !== undefined && 'share' in t.place)).toBe(true);
      // Each of three workers owns a contiguous third of the partials.
      const owners = programs.map((t) => ownerOf(t.place!, ['w0', 'w1', 'w2']));
      expect(owners).toEqual([...owners].sort());
      expect(new Set(owners).size).toBe(3);
      const gpu = await runLocal(doc, params, opts);
      const cpu = await runLocal(doc, params);
      const total = (r: RunResult['results']) => (r.total?.kind === 'scalar' ? r.total.value : NaN);
      expect(Math.abs(total(gpu) - total(cpu)) / total(cpu)).toBeLessThan(1e-12);
      expect(digestOf(run(gpu))).toBe(digestOf(run(cpu)));
    });
  }
});
