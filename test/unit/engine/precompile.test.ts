/**
 * Engine.precompile (`gpuflow run` compiles its graph while the workers start): the graph is made
 * for the device target the plan promises (a GPU worker with its cuda backend) and used as it is
 * when the ready workers give that target; when they do not (the GPU worker's cuda backend did not
 * load), take() compiles again for what is there. The oracle is compileWorkflow with each target:
 * an svd that fits one cuda GPU is one factor-whole task, else the TSQR tree.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { unbatch } from '../../../common/batch';
import { toWorkerSchema, type ToWorker } from '../../../common/messages';
import type { Discovery } from '../../../main/cluster/discovery';
import type { ExitInfo, LaunchedProcess, Launcher } from '../../../main/cluster/launcher';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { Engine } from '../../../main/engine/engine';
import { validateWorkflow } from '../../../main/engine/validate';

/** Processes that answer init with ready, the GPU worker's cuda backend loaded or not. */
function fakeLauncher(cudaLoads: boolean, warmAsked: string[] = []): Launcher {
  return {
    kind: 'fork',
    launch(opts): LaunchedProcess {
      let onMsg: (raw: unknown) => void = () => undefined;
      let onExit: (e: ExitInfo) => void = () => undefined;
      return {
        pid: 3000,
        // What a turn sends comes as one batch (common/batch.ts): init and warm-libraries here.
        send: (raw: unknown) => unbatch(raw, (m) => answer(toWorkerSchema.parse(m))),
        onMessage: (fn) => (onMsg = fn),
        onExit: (fn) => (onExit = fn),
        kill: (signal) => setTimeout(() => onExit({ code: null, signal }), 1),
      };
      function answer(msg: ToWorker) {
        if (msg.type === 'warm-libraries') warmAsked.push(opts.name);
        if (msg.type === 'init') {
          const cuda = msg.config.kind === 'gpu' ? [{ name: 'cuda', available: cudaLoads, ...(cudaLoads ? {} : { reason: 'no device' }) }] : [];
          setTimeout(
            () =>
              onMsg({
                type: 'ready',
                pid: 1,
                address: { workerId: msg.config.id, host: '127.0.0.1', port: 1 },
                backends: [...cuda, { name: 'js', available: true }],
              }),
            5,
          );
        }
        if (msg.type === 'shutdown') setTimeout(() => onExit({ code: 0, signal: null }), 1);
      }
    },
  };
}

const gib = 2 ** 30;
const discovery: Discovery = {
  gpus: [{ index: 0, uuid: 'GPU-test', name: 'test GPU', memoryTotalMiB: 16384, memoryUsedMiB: 0, utilizationPct: 0, pciBusId: '0', driverVersion: '1' }],
  cpu: { cores: 2, model: 'test', memoryTotalBytes: 8 * gib, memoryFreeBytes: 4 * gib },
};
const wf = validateWorkflow({
  format: 'gpuflow.workflow/1',
  nodes: [
    { id: 'x', op: 'random_normal', params: { shape: [90, 7], chunks: [20, 7], seed: 5, dtype: 'float64' } },
    { id: 'f', op: 'svd', params: {} },
  ],
  edges: [{ source: 'x', sourcePort: 'out', target: 'f', targetPort: 'x' }],
});
const ops = (tasks: Iterable<{ spec: { kind: string; op?: string } }>) => [...tasks].map((t) => t.spec.op ?? t.spec.kind).sort();

let engine: Engine | null = null;
afterEach(async () => {
  await engine?.shutdown();
  engine = null;
});

describe('Engine.precompile', () => {
  it('compiles for the planned GPU worker while the workers start, and that graph is the run’s', async () => {
    const warmAsked: string[] = [];
    engine = new Engine(discovery, { launcher: fakeLauncher(true, warmAsked), cpuWorkers: 1 });
    const starting = engine.start();
    const early = engine.precompile(wf);
    await starting;
    // An svd: the GPU worker (alone) was asked to make its cuBLAS / cuSOLVER handles, once.
    engine.compile(wf);
    await new Promise((r) => setTimeout(r, 10));
    expect(warmAsked).toEqual(['gpuflow-gpu0']);
    expect(engine.deviceTarget).toEqual(engine.plannedDeviceTarget);
    const g = await early.take();
    expect(await early.take()).toBe(g); // the early graph itself, not compiled again
    const oracle = compileWorkflow(wf, { maxTaskBytes: engine.maxTaskBytes, device: engine.deviceTarget });
    expect(ops(g.tasks.values())).toEqual(ops(oracle.tasks.values()));
    expect(ops(g.tasks.values())).toContain('factor-whole');
  });

  it('compiles again when the GPU worker’s cuda backend did not load (the TSQR graph)', async () => {
    engine = new Engine(discovery, { launcher: fakeLauncher(false), cpuWorkers: 1 });
    const starting = engine.start();
    const early = engine.precompile(wf);
    await starting;
    expect(engine.plannedDeviceTarget).toBeDefined();
    expect(engine.deviceTarget).toBeUndefined();
    const g = await early.take();
    // Not the graph compiled for the plan: one for the workers as they are (a second take() is
    // that same graph again, kept by the engine: compile-cache.ts).
    expect(g).not.toBe(await early.planned);
    expect(await early.take()).toBe(g);
    const oracle = compileWorkflow(wf, { maxTaskBytes: engine.maxTaskBytes });
    expect(ops(g.tasks.values())).toEqual(ops(oracle.tasks.values()));
    expect(ops(g.tasks.values())).not.toContain('factor-whole');
    expect(ops(g.tasks.values())).toContain('qr-block');
  });

  it('forPlan: the same compile while the plan stands; a new one for 4 GPU workers per GPU (WorkerPool.shareGpus), made for them', async () => {
    engine = new Engine(discovery, { launcher: fakeLauncher(true), cpuWorkers: 1 });
    const early = engine.precompile(wf);
    expect(early.forPlan()).toBe(early);
    engine.pool.shareGpus({ perDevice: 4, why: 'test' });
    expect(engine.pool.plannedConfigs.filter((c) => c.kind === 'gpu').length).toBe(4);
    const again = early.forPlan();
    expect(again).not.toBe(early);
    expect(again.forPlan()).toBe(again);
    await engine.start();
    const g = await again.take();
    expect(await again.take()).toBe(g); // made for the workers that started: not compiled a third time
    // Four cuda GPU workers of a quarter of the memory each: the oracle's options are the ready workers'.
    expect(engine.deviceTarget?.gpus).toBe(4);
    const oracle = compileWorkflow(wf, { maxTaskBytes: engine.maxTaskBytes, device: engine.deviceTarget, arrayResource: 'gpu', gpuShare: { gpus: 4, taskElements: 2 ** 30 } });
    expect(ops(g.tasks.values())).toEqual(ops(oracle.tasks.values()));
  });

  it('shareGpus is refused once the pool has started its workers', async () => {
    engine = new Engine(discovery, { launcher: fakeLauncher(true), cpuWorkers: 1 });
    await engine.start();
    expect(() => engine!.pool.shareGpus({ perDevice: 4, why: 'test' })).toThrow(/started/);
  });
});
