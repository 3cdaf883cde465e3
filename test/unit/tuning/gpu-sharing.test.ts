/**
 * GPU workers per GPU for a search (main/engine/gpu-sharing.ts), read from the compiled graph:
 * trials on gpuflow-cuda no larger than the wide MLP measured sharing an H100 (32 features, 2
 * layers of 256, 3 classes: 32·256 + 256·256 + 256·3 = 74 496 multiply-adds per row, worked by
 * hand) get 4 per GPU; larger ones, ones that train on wasm, --backend without cuda, a table's
 * unknown classes keep one; GPUFLOW_GPU_WORKERS_PER_DEVICE leaves the rule out.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { planGpuSharing } from '../../../main/engine/gpu-sharing';

type Doc = { nodes: Array<{ op: string; params: Record<string, unknown> }> };

function compiled(edit: (d: Doc) => void = () => undefined) {
  const doc = JSON.parse(readFileSync('test/fixtures/workflows/search-wide-small.json', 'utf8')) as Doc;
  edit(doc);
  return compileWorkflow(validateWorkflow(doc));
}
const node = (d: Doc, op: string) => d.nodes.find((n) => n.op === op)!;
const NO_ENV = {};

describe('GPU workers per GPU for a search', () => {
  it('plans 4 per GPU for the wide MLP at its widest, 74 496 multiply-adds per row', () => {
    const s = planGpuSharing(compiled(), {}, NO_ENV);
    expect(s?.perDevice).toBe(4);
    expect(s?.why).toContain('largest trial 74496 multiply-adds per row, within [16000, 74496]');
  });

  it('keeps one for a trial past the measured size (units 512: 32·512 + 512·512 + 512·3 = 280 064)', () => {
    const s = planGpuSharing(compiled((d) => (node(d, 'search').params.space = { units: [128, 512] })), {}, NO_ENV);
    expect(s).toEqual({ perDevice: 1, why: 'one per GPU: largest trial 280064 multiply-adds per row > 74496: sharing a GPU not measured for it' });
  });

  it('keeps one when every trial trains on wasm (units 64: 32·64 + 64·64 + 64·3 = 6 336)', () => {
    const s = planGpuSharing(compiled((d) => (node(d, 'search').params.space = { units: [32, 64] })), {}, NO_ENV);
    expect(s).toEqual({ perDevice: 1, why: 'one per GPU: largest trial 6336 multiply-adds per row < 16000: trials train on wasm' });
  });

  it('keeps one with --backend native-cpu or --no-gpus, and for a workflow without a search', () => {
    expect(planGpuSharing(compiled(), { useGpus: false }, NO_ENV)).toEqual({ perDevice: 1, why: 'one per GPU: no GPU workers (--no-gpus)' });
    expect(planGpuSharing(compiled(), { backends: ['native-cpu'] }, NO_ENV)?.perDevice).toBe(1);
    const seed = compileWorkflow(validateWorkflow(JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'))));
    expect(planGpuSharing(seed, {}, NO_ENV)).toEqual({ perDevice: 1, why: 'one per GPU: no search in the workflow' });
  });

  it('leaves the choice to GPUFLOW_GPU_WORKERS_PER_DEVICE when it is set', () => {
    expect(planGpuSharing(compiled(), {}, { GPUFLOW_GPU_WORKERS_PER_DEVICE: '2' })).toBeUndefined();
  });
});
