import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { EARLY_ARGS, startEarlyNvidiaSmi } from '../../../bin/early-nvidia-smi.mjs';
import { discover, parseNvidiaSmi, QUERY_FIELDS, restrictGpus } from '../../../main/cluster/discovery';
import { planWorkers } from '../../../main/cluster/pool';

const TWO = `0, GPU-11111111-2222-3333-4444-555555555555, NVIDIA H100 80GB HBM3, 81559, 1, 0, 00000000:18:00.0, 580.159.04
1, GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee, NVIDIA H100 80GB HBM3, 81559, 20000, 97, 00000000:2A:00.0, 580.159.04
`;

function fakeSmi(body: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'smi-'));
  const file = path.join(dir, 'nvidia-smi');
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('device discovery', () => {
  it('parses nvidia-smi csv', () => {
    const { gpus, errors } = parseNvidiaSmi(TWO);
    expect(errors).toEqual([]);
    expect(gpus[1]).toEqual({ index: 1, uuid: 'GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', name: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 81559, memoryUsedMiB: 20000, utilizationPct: 97, pciBusId: '00000000:2A:00.0', driverVersion: '580.159.04' });
  });

  it('reports garbage lines instead of guessing', () => {
    const { gpus, errors } = parseNvidiaSmi('No devices were found\n');
    expect(gpus).toEqual([]);
    expect(errors[0]).toMatch(/line 1: expected 8 fields/);
  });

  it('restricts to GPUFLOW_DEVICES by index or uuid and names unknown ones', () => {
    const { gpus } = parseNvidiaSmi(TWO);
    expect(restrictGpus(gpus, '1').gpus.map((g) => g.index)).toEqual([1]);
    expect(restrictGpus(gpus, 'GPU-11111111-2222-3333-4444-555555555555,7')).toEqual({ gpus: [gpus[0]], reason: 'GPUFLOW_DEVICES names unknown GPUs: 7' });
  });

  it('gives zero GPUs and a reason for a missing binary, a failing driver and garbage output', async () => {
    expect(await discover({ nvidiaSmi: '/nonexistent/nvidia-smi', devicesEnv: '' })).toMatchObject({ gpus: [], reason: expect.stringMatching(/not found/) });
    const failing = fakeSmi('echo "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver" >&2; exit 9');
    expect(await discover({ nvidiaSmi: failing, devicesEnv: '' })).toMatchObject({ gpus: [], reason: expect.stringMatching(/couldn't communicate/) });
    const garbage = fakeSmi('echo "%%% not csv"');
    expect(await discover({ nvidiaSmi: garbage, devicesEnv: '' })).toMatchObject({ gpus: [], reason: expect.stringMatching(/not understood/) });
    const ok = fakeSmi(`cat <<'X'\n${TWO}X`);
    const d = await discover({ nvidiaSmi: ok, devicesEnv: '1' });
    expect(d.gpus.map((g) => g.uuid)).toEqual(['GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee']);
    expect(d.cpu.cores).toBeGreaterThan(0);
  });

  it('plans one worker per GPU pinned by uuid, CPU workers, and labelled virtual GPUs', () => {
    const { gpus } = parseNvidiaSmi(TWO);
    const plan = planWorkers({ discovery: { gpus, cpu: { cores: 16, model: 'x', memoryTotalBytes: 2 ** 36, memoryFreeBytes: 2 ** 36 } }, virtualGpus: 2 }, 'x'.repeat(32));
    expect(plan.map((p) => [p.config.id, p.config.kind, p.env.CUDA_VISIBLE_DEVICES])).toEqual([
      ['gpu0', 'gpu', 'GPU-11111111-2222-3333-4444-555555555555'],
      ['gpu1', 'gpu', 'GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee'],
      ['cpu0', 'cpu', ''],
      ['vgpu0', 'virtual-gpu', ''],
      ['vgpu1', 'virtual-gpu', ''],
    ]);
    expect(plan[3].config.label).toMatch(/virtual GPU 0 \(CPU-backed\)/);
    // Each kernel call in flight holds a libuv thread: a GPU worker gets one per call it may run.
    expect(plan.filter((p) => p.config.kind === 'gpu').map((p) => p.env.UV_THREADPOOL_SIZE)).toEqual([String(plan[0].config.concurrency), String(plan[1].config.concurrency)]);
    expect(plan[2].config.threads).toBe(14);
  });

  it('asks GPU workers to make their CUDA context at once when they may use cuda, and no other worker', () => {
    const { gpus } = parseNvidiaSmi(TWO);
    const discovery = { gpus, cpu: { cores: 16, model: 'x', memoryTotalBytes: 2 ** 36, memoryFreeBytes: 2 ** 36 } };
    const warm = (backends?: Array<'js' | 'native-cpu' | 'cuda'>) => planWorkers({ discovery, virtualGpus: 1, backends }, 'x'.repeat(32)).map((p) => [p.config.id, p.env.GPUFLOW_CUDA_WARMUP ?? null]);
    expect(warm()).toEqual([['gpu0', '1'], ['gpu1', '1'], ['cpu0', null], ['vgpu0', null]]);
    expect(warm(['cuda'])).toEqual([['gpu0', '1'], ['gpu1', '1'], ['cpu0', null], ['vgpu0', null]]);
    expect(warm(['native-cpu'])).toEqual([['gpu0', null], ['gpu1', null], ['cpu0', null], ['vgpu0', null]]);
  });

  it('applies PlanOptions.memoryLimit to every worker, or per worker id, and refuses a non-positive one', () => {
    const { gpus } = parseNvidiaSmi(TWO);
    const base = { discovery: { gpus, cpu: { cores: 16, model: 'x', memoryTotalBytes: 2 ** 36, memoryFreeBytes: 2 ** 36 } }, virtualGpus: 1 };
    const limits = (memoryLimit?: number | Record<string, number>) => Object.fromEntries(planWorkers({ ...base, memoryLimit }, 'x'.repeat(32)).map((p) => [p.config.id, p.config.memoryLimit]));
    const defaults = limits();
    expect(Object.values(limits(64 << 20))).toEqual([64 << 20, 64 << 20, 64 << 20, 64 << 20]);
    expect(limits({ vgpu0: 1 << 20 })).toEqual({ ...defaults, vgpu0: 1 << 20 });
    expect(() => limits({ cpu0: 0 })).toThrow(/memoryLimit for cpu0 must be a positive number/);
  });

  it('takes the query bin/gpuflow.mjs started early for `gpuflow run` (once, same binary and question)', async () => {
    expect(EARLY_ARGS).toEqual([`--query-gpu=${QUERY_FIELDS.join(',')}`, '--format=csv,noheader,nounits']);
    const dir = mkdtempSync(path.join(tmpdir(), 'smi-count-'));
    const log = path.join(dir, 'calls');
    const smi = fakeSmi(`echo "$@" >> ${log}\ncat <<'EOF'\n${TWO}EOF`);
    expect(startEarlyNvidiaSmi(['devices'], { GPUFLOW_NVIDIA_SMI: smi })).toBeNull();
    expect(startEarlyNvidiaSmi(['run', 'w.json', '--no-gpus'], { GPUFLOW_NVIDIA_SMI: smi })).toBeNull();
    expect(startEarlyNvidiaSmi(['run', 'w.json', '--dask', 'local:2'], { GPUFLOW_NVIDIA_SMI: smi })).toBeNull();
    expect(startEarlyNvidiaSmi(['run', 'w.json'], { GPUFLOW_NVIDIA_SMI: smi, GPUFLOW_PRELAUNCH: '0' })).toBeNull();
    const child = startEarlyNvidiaSmi(['run', 'w.json'], { GPUFLOW_NVIDIA_SMI: smi });
    expect(child).not.toBeNull();
    // Another binary does not take it; the same one does, and nvidia-smi ran once for both.
    expect((await discover({ nvidiaSmi: '/nonexistent/nvidia-smi' })).gpus).toEqual([]);
    const d = await discover({ nvidiaSmi: smi, devicesEnv: '' });
    expect(d.gpus.map((g) => g.uuid)).toEqual(['GPU-11111111-2222-3333-4444-555555555555', 'GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee']);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([EARLY_ARGS.join(' ')]);
    // Taken once: the next discovery asks again.
    expect((await discover({ nvidiaSmi: smi, devicesEnv: '' })).gpus).toHaveLength(2);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(2);
  });
});
