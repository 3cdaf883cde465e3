// Several GPU workers per GPU (PoolOptions.gpuWorkersPerDevice / GPUFLOW_GPU_WORKERS_PER_DEVICE):
// how the multi-GPU paths (CUDA IPC, placement) are tested on one GPU. And the dask-cuda style
// rotated CUDA_VISIBLE_DEVICES (showAllGpus) for drivers that will not map a hidden GPU's memory.
import { afterEach, describe, expect, it } from 'vitest';
import { parseNvidiaSmi } from '../../../main/cluster/discovery';
import { planWorkers, type PoolOptions } from '../../../main/cluster/pool';

const TWO = [
  '0, GPU-11111111-2222-3333-4444-555555555555, NVIDIA H100, 81559, 0, 0, 00000000:18:00.0, 580.1',
  '1, GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee, NVIDIA H100, 81559, 0, 0, 00000000:2A:00.0, 580.1',
].join('\n');
const [U0, U1] = ['GPU-11111111-2222-3333-4444-555555555555', 'GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee'];
const MiB = 1024 * 1024;

function plan(extra: Partial<PoolOptions>, gpuCount = 2) {
  const gpus = parseNvidiaSmi(TWO).gpus.slice(0, gpuCount);
  return planWorkers(
    { launcher: { kind: 'fork', launch: () => { throw new Error('unused'); } }, discovery: { gpus, cpu: { cores: 16, model: 'x', memoryTotalBytes: 2 ** 36, memoryFreeBytes: 2 ** 36 } }, cpuWorkers: 0, ...extra },
    'x'.repeat(32),
  );
}

afterEach(() => {
  delete process.env.GPUFLOW_GPU_WORKERS_PER_DEVICE;
  delete process.env.GPUFLOW_GPU_CONCURRENCY;
});

describe('GPU workers per device', () => {
  it('starts two workers on one GPU, each pinned to it with half its memory', () => {
    const p = plan({ gpuWorkersPerDevice: 2 }, 1);
    expect(p.map((w) => [w.config.id, w.config.kind, w.config.gpuUuid, w.env.CUDA_VISIBLE_DEVICES])).toEqual([
      ['gpu0', 'gpu', U0, U0],
      ['gpu0-1', 'gpu', U0, U0],
    ]);
    expect(p.map((w) => w.config.memoryLimit)).toEqual([(81559 * MiB * 0.9) / 2, (81559 * MiB * 0.9) / 2]);
    expect(p[1].config.label).toBe('NVIDIA H100 (worker 2 of 2)');
  });

  it('reads GPUFLOW_GPU_WORKERS_PER_DEVICE, and refuses a value that is not a positive integer', () => {
    process.env.GPUFLOW_GPU_WORKERS_PER_DEVICE = '2';
    expect(plan({}).map((w) => w.config.id)).toEqual(['gpu0', 'gpu0-1', 'gpu1', 'gpu1-1']);
    process.env.GPUFLOW_GPU_WORKERS_PER_DEVICE = '0';
    expect(() => plan({})).toThrow(/GPUFLOW_GPU_WORKERS_PER_DEVICE must be a positive integer, got '0'/);
  });

  it('runs 16 kernel calls at once on a GPU worker, one libuv thread each, or GPUFLOW_GPU_CONCURRENCY', () => {
    expect(plan({}).map((w) => [w.config.concurrency, w.env.UV_THREADPOOL_SIZE])).toEqual([
      [16, '16'],
      [16, '16'],
    ]);
    process.env.GPUFLOW_GPU_CONCURRENCY = '4';
    expect(plan({}).map((w) => [w.config.concurrency, w.env.UV_THREADPOOL_SIZE])).toEqual([
      [4, '4'],
      [4, '4'],
    ]);
    process.env.GPUFLOW_GPU_CONCURRENCY = 'four';
    expect(() => plan({})).toThrow(/GPUFLOW_GPU_CONCURRENCY must be a positive integer, got 'four'/);
  });

  it('shows every GPU to each worker, its own first, when asked', () => {
    expect(plan({ showAllGpus: true }).map((w) => w.env.CUDA_VISIBLE_DEVICES)).toEqual([`${U0},${U1}`, `${U1},${U0}`]);
    expect(plan({}).map((w) => w.env.CUDA_VISIBLE_DEVICES)).toEqual([U0, U1]);
  });
});
