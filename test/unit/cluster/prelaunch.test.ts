/**
 * main/cluster/prelaunch.ts: the workers `gpuflow run` forks before the engine loads are the ones
 * the pool then asks for (same name, same environment, GPU workers once discovery answers), each
 * handed over once; anything else forks as usual, and what nobody claimed is killed.
 */
import { describe, expect, it } from 'vitest';
import type { Discovery } from '../../../main/cluster/discovery';
import { parseNvidiaSmi } from '../../../main/cluster/discovery';
import type { ExitInfo, LaunchedProcess, Launcher, LaunchOptions } from '../../../main/cluster/launcher';
import { launchEnv, planWorkers } from '../../../main/cluster/plan';
import { prelaunch } from '../../../main/cluster/prelaunch';

const SMI = `0, GPU-11111111-2222-3333-4444-555555555555, NVIDIA H100 80GB HBM3, 81559, 1, 0, 00000000:18:00.0, 580.159.04
1, GPU-66666666-7777-8888-9999-000000000000, NVIDIA H100 80GB HBM3, 81559, 1, 0, 00000000:2A:00.0, 580.159.04
`;
const discovery: Discovery = { gpus: parseNvidiaSmi(SMI).gpus, cpu: { cores: 8, model: 'x', memoryTotalBytes: 2 ** 34, memoryFreeBytes: 2 ** 34 } };

interface FakeProc extends LaunchedProcess {
  name: string;
  env: Record<string, string>;
  killed: string[];
  exit(): void;
}

/** A launcher that records what it starts instead of forking. */
function fakeLauncher() {
  const started: FakeProc[] = [];
  const launcher: Launcher = {
    kind: 'fork',
    launch(o: LaunchOptions): LaunchedProcess {
      const exits: Array<(i: ExitInfo) => void> = [];
      const p: FakeProc = {
        name: o.name,
        env: o.env,
        killed: [],
        pid: started.length + 100,
        send: () => undefined,
        onMessage: () => undefined,
        onExit: (fn) => exits.push(fn),
        kill: (signal) => p.killed.push(signal),
        exit: () => exits.forEach((fn) => fn({ code: 1, signal: null })),
      };
      started.push(p);
      return p;
    },
  };
  return { launcher, started };
}

/** What the pool launches for these options: WorkerHandle names its process gpuflow-<id>, the pool's first try uses launchEnv(env, 1). */
function poolLaunches(opts: Parameters<typeof planWorkers>[0]): LaunchOptions[] {
  return planWorkers(opts, 'token').map((p) => ({ name: `gpuflow-${p.config.id}`, env: launchEnv(p.env, 1) }));
}

describe('prelaunch', () => {
  it('forks CPU and virtual GPU workers at once and GPU workers once discovery answers, each the pool then takes over', async () => {
    const base = fakeLauncher();
    let answer: (d: Discovery) => void = () => undefined;
    const early = prelaunch(base.launcher, { cpuWorkers: 1, virtualGpus: 2, useGpus: true }, new Promise((r) => (answer = r)));
    expect(base.started.map((p) => p.name)).toEqual(['gpuflow-cpu0', 'gpuflow-vgpu0', 'gpuflow-vgpu1']);
    answer(discovery);
    expect(await early.discovery).toBe(discovery);
    expect(base.started.map((p) => p.name)).toEqual(['gpuflow-cpu0', 'gpuflow-vgpu0', 'gpuflow-vgpu1', 'gpuflow-gpu0', 'gpuflow-gpu1']);
    const forked = [...base.started];
    // The pool with the same options gets exactly those processes, and nothing new is forked.
    const got = poolLaunches({ discovery, cpuWorkers: 1, virtualGpus: 2, useGpus: true }).map((o) => early.launcher.launch(o));
    expect(got).toEqual([forked[3], forked[4], forked[0], forked[1], forked[2]]);
    expect(base.started).toHaveLength(5);
    // A GPU worker is pinned to its GPU and warms CUDA up; the others see no GPU.
    expect(forked[3].env).toMatchObject({ CUDA_VISIBLE_DEVICES: discovery.gpus[0].uuid, GPUFLOW_CUDA_WARMUP: '1', GPUFLOW_START_ATTEMPT: '1' });
    expect(forked[0].env).toEqual({ CUDA_VISIBLE_DEVICES: '', GPUFLOW_START_ATTEMPT: '1' });
    // Handed over once: a restart of the same worker forks a new process.
    const again = early.launcher.launch({ name: 'gpuflow-cpu0', env: launchEnv({ CUDA_VISIBLE_DEVICES: '' }, 1) });
    expect(again).toBe(base.started[5]);
    early.dispose();
    expect(forked.every((p) => p.killed.length === 0)).toBe(true);
  });

  it('forks anew when the pool asks with another environment, or for a process that died, and kills the unclaimed on dispose', async () => {
    const base = fakeLauncher();
    const early = prelaunch(base.launcher, { cpuWorkers: 2, virtualGpus: 0, useGpus: false }, Promise.resolve(discovery));
    await early.discovery;
    expect(base.started.map((p) => p.name)).toEqual(['gpuflow-cpu0', 'gpuflow-cpu1']);
    const [cpu0, cpu1] = base.started;
    // Second try of a start: GPUFLOW_START_ATTEMPT=2 differs, so it is a fresh process.
    const retry = early.launcher.launch({ name: 'gpuflow-cpu0', env: launchEnv({ CUDA_VISIBLE_DEVICES: '' }, 2) });
    expect(retry).not.toBe(cpu0);
    cpu1.exit();
    const after = early.launcher.launch({ name: 'gpuflow-cpu1', env: launchEnv({ CUDA_VISIBLE_DEVICES: '' }, 1) });
    expect(after).not.toBe(cpu1);
    expect(base.started).toHaveLength(4);
    early.dispose();
    expect(cpu0.killed).toEqual(['SIGTERM']);
    expect(retry === base.started[2] && base.started[2].killed.length === 0).toBe(true);
  });

  it('forks no GPU worker after dispose (a refused workflow before nvidia-smi answered)', async () => {
    const base = fakeLauncher();
    let answer: (d: Discovery) => void = () => undefined;
    const early = prelaunch(base.launcher, { cpuWorkers: 0, virtualGpus: 0, useGpus: true }, new Promise((r) => (answer = r)));
    early.dispose();
    answer(discovery);
    await early.discovery;
    expect(base.started).toHaveLength(0);
  });

  it('forks GPU workers at once from the driver listing, keeps those nvidia-smi agrees with, and re-forks or kills the rest', async () => {
    const base = fakeLauncher();
    let answer: (d: Discovery) => void = () => undefined;
    // The hint has GPU 0 right, GPU 1 with another UUID, and a third GPU nvidia-smi does not list.
    const wrong = { ...discovery.gpus[1], uuid: 'GPU-00000000-0000-0000-0000-000000000000' };
    const extra = { ...discovery.gpus[1], index: 2, uuid: 'GPU-99999999-0000-0000-0000-000000000000' };
    const early = prelaunch(base.launcher, { cpuWorkers: 1, virtualGpus: 0, useGpus: true }, new Promise((r) => (answer = r)), [discovery.gpus[0], wrong, extra]);
    expect(base.started.map((p) => p.name)).toEqual(['gpuflow-cpu0', 'gpuflow-gpu0', 'gpuflow-gpu1', 'gpuflow-gpu2']);
    const [, gpu0, gpu1Wrong, gpu2] = base.started;
    answer(discovery);
    await early.discovery;
    expect(base.started.map((p) => p.name)).toEqual(['gpuflow-cpu0', 'gpuflow-gpu0', 'gpuflow-gpu1', 'gpuflow-gpu2', 'gpuflow-gpu1']);
    expect([gpu0.killed, gpu1Wrong.killed, gpu2.killed]).toEqual([[], ['SIGTERM'], ['SIGTERM']]);
    const got = poolLaunches({ discovery, cpuWorkers: 1, virtualGpus: 0, useGpus: true }).map((o) => early.launcher.launch(o));
    expect(got).toEqual([gpu0, base.started[4], base.started[0]]);
    expect(base.started[4].env.CUDA_VISIBLE_DEVICES).toBe(discovery.gpus[1].uuid);
    expect(base.started).toHaveLength(5);
  });
});
