/**
 * Small outputs travel with their task's `done` (common/messages.ts INLINE_VALUE_BYTES, issue 30:
 * the fixed cost of a four-GPU run): a combine on one GPU worker gets the partials made on the
 * others inline in its `execute`, not by a peer fetch, and the run's scalar comes from main's copy.
 * Four GPU workers whose CUDA calls the CPU kernels answer (GPUFLOW_BENCH_FAKE_CUDA, a fake
 * nvidia-smi), every one in the run from its start, the sliced seed at N=2000 in 100² chunks
 * (coarsened to 32 partials in contiguous shares, so the combine tree's upper levels read partials
 * of every GPU). The digest is one CPU worker's; with GPUFLOW_INLINE_VALUES=0 (the fetches of
 * before) the same run moves partials between the workers, so the tree does cross them. In one
 * process, on two virtual GPU workers: the `execute` and `fetch` messages main sends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToWorker } from '../../common/messages';
import type { RunResult } from '../../common/results';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';
import { nativeInfo } from '../../native/index';
import { chain } from '../helpers/local-run';
import { runCli } from './cli-helpers';
import { fakeNvidiaSmi } from './fake-gpus';

type Out = RunResult & { digest: string; tasksPerWorker: Record<string, number> };

async function run(extra: string[], env: Record<string, string>): Promise<Out> {
  const r = await runCli(['run', 'examples/seed-benchmark.json', '--json', '--no-store', '--param', 'N=2000', '--param', 'chunks=100', ...extra], env, 240_000);
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as Out;
  expect(out.status).toBe('finished');
  return out;
}

describe.skipIf(!nativeInfo().available)('small outputs sent with their done', () => {
  it('combine partials of four GPU workers without a peer fetch, one digest', async () => {
    const gpus = { GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(4), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_START_ON_FIRST: '0' };
    const one = await run(['--cpu-workers', '1', '--threads', '1'], { GPUFLOW_NVIDIA_SMI: '/nonexistent/nvidia-smi' });
    const inline = await run(['--cpu-workers', '0'], gpus);
    const fetched = await run(['--cpu-workers', '0'], { ...gpus, GPUFLOW_INLINE_VALUES: '0' });
    for (const r of [inline, fetched]) {
      expect(r.digest).toBe(one.digest);
      for (const id of ['gpu0', 'gpu1', 'gpu2', 'gpu3']) expect(r.tasksPerWorker[id], id).toBeGreaterThan(0);
    }
    // The partials crossed workers: fetched from their peers before, inline now.
    expect(fetched.stats.transfers.count).toBeGreaterThan(0);
    expect(inline.stats.transfers).toMatchObject({ count: 0, bytes: 0 });
  }, 300_000);
});

describe('the messages of a run whose outputs are small (2 virtual GPU workers, js)', () => {
  let engine: Engine;
  const sent: Array<{ to: string; msg: ToWorker }> = [];
  beforeAll(async () => {
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 0, virtualGpus: 2, backends: ['js'], threadsPerCpuWorker: 1 });
    await engine.start();
    for (const w of engine.pool.workers.values()) {
      const send = w.send.bind(w);
      w.send = (msg: ToWorker) => {
        sent.push({ to: w.id, msg });
        send(msg);
      };
    }
  });
  afterAll(() => engine.shutdown());

  // 1..64 in 16 blocks of 4: 16 partials, two combines of 8, the final; the sum is 2080.
  const wf = validateWorkflow(chain(['x', 'arange', { start: 1, stop: 65, chunks: 4 }], ['total', 'reduce', { op: 'sum' }]));

  async function run(inline: boolean) {
    sent.length = 0;
    process.env.GPUFLOW_INLINE_VALUES = inline ? '1' : '0';
    try {
      const r = await engine.run(wf).result;
      expect(r.status, r.error).toBe('finished');
      const total = r.results.total;
      expect('value' in total ? total.value : null).toBe(2080);
    } finally {
      delete process.env.GPUFLOW_INLINE_VALUES;
    }
    const deps = sent.flatMap(({ msg }) => (msg.type === 'execute' ? msg.deps : []));
    return { fetches: sent.filter((s) => s.msg.type === 'fetch').length, remote: deps.filter((d) => d.at !== null), tasks: new Set(sent.filter((s) => s.msg.type === 'execute').map((s) => s.to)).size };
  }

  it('sends each remote partial inline and fetches no result; with it off, neither', async () => {
    const on = await run(true);
    const off = await run(false);
    for (const r of [on, off]) {
      expect(r.tasks).toBe(2);
      expect(r.remote.length).toBeGreaterThan(0);
    }
    expect(on.remote.every((d) => d.value?.kind === 'partial')).toBe(true);
    expect(on.fetches).toBe(0);
    expect(off.remote.some((d) => d.value !== undefined)).toBe(false);
    expect(off.fetches).toBe(1);
  }, 60_000);
});
