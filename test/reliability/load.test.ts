/**
 * L1 load: a 114 849-task graph (the seed workflow, N=3162 in 10x10 chunks) compiled and
 * scheduled in this process the way RunController does it since the D8 fix: compile in slices
 * (compileWorkflowAsync), scheduler setup and start in slices (Scheduler.create, startSteps, driven
 * by runInSlices), then completions arriving one per macrotask from four simulated workers, as
 * worker messages do. By default the first 20 000 completions are scheduled (placement and
 * dispatch at > 100k tasks); SOAK schedules the whole graph.
 *
 * Two probes watch main's loop: perf_hooks.monitorEventLoopDelay, and a 5 ms interval that also
 * reads the loop thread's own CPU time, so that a stall can be told apart from waiting for a core.
 * No slice runs more than SLICE_MS (8 ms) of our work; what else can pause the loop is V8's garbage
 * collector (a heap of ~300 MiB: scavenges of 13-40 ms and mark-compact pauses up to ~70 ms were
 * measured on the loaded dev container) and, on a busy machine, the OS scheduling others.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { compileWorkflowAsync } from '../../main/engine/compile/compile';
import { Scheduler, type Instruction } from '../../main/engine/scheduler/scheduler';
import { runInSlices } from '../../main/engine/slices';
import { validateWorkflow } from '../../main/engine/validate';
import { figures, seedDoc, SOAK, STRICT } from './helpers';

const heapMiB = () => Math.round(process.memoryUsage().heapUsed / 1048576);
const gc = () => (globalThis as { gc?: () => void }).gc?.();
const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * CPU ms this test's own thread (the loop's: vitest's forks pool runs it in a process's main
 * thread, whose tid is the pid) has run: the kernel's schedstat, in ns, which counts neither the
 * time it waited for a core nor V8's parallel GC threads; the whole process's CPU where there is
 * no schedstat.
 */
function loopThreadMs(): number {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
}

describe('a 100 000-task graph', () => {
  it('compiles and schedules without stalling the event loop for 100 ms', { timeout: SOAK ? 3600_000 : 120_000 }, async () => {
    gc();
    const heapBefore = heapMiB();
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    // A second probe, ticking every 5 ms: per phase, the largest wall-clock gap between ticks and
    // the largest CPU time the loop's own thread ran within one gap (loopThreadMs). A gap is a
    // stall of the loop; its CPU time is the part of it spent running our work or the collector's
    // main-thread part. On a machine shared with other busy processes the OS may leave the thread
    // waiting for a core: that lengthens the wall gap, not the CPU gap. (The whole process's CPU
    // also counted V8's parallel GC threads: a 38 ms stall used 70 ms of it here, 135-170 ms on a
    // loaded CI machine.) The thread was busy at most the smaller of the two within one gap:
    // `busy`, the largest such bound over the phase, is what is asserted.
    let last = { wall: performance.now(), cpu: loopThreadMs() };
    const gap = { wall: 0, cpu: 0, busy: 0 };
    const probe = setInterval(() => {
      const wall = performance.now();
      const cpu = loopThreadMs();
      const cpuMs = cpu - last.cpu;
      gap.wall = Math.max(gap.wall, wall - last.wall);
      gap.cpu = Math.max(gap.cpu, cpuMs);
      gap.busy = Math.max(gap.busy, Math.min(wall - last.wall, cpuMs));
      last = { wall, cpu };
    }, 5);
    // V8's collector pauses (wall ms), to tell them apart from ours in the figures.
    const gcPause = { max: 0, count: 0 };
    const gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        gcPause.max = Math.max(gcPause.max, e.duration);
        gcPause.count++;
      }
    });
    gcObserver.observe({ entryTypes: ['gc'] });
    const phaseLag = (): { loop: number; gapWall: number; gapCpu: number; gapBusy: number; gcMax: number; gcs: number } => {
      const v = { loop: round1(h.max / 1e6), gapWall: round1(gap.wall), gapCpu: round1(gap.cpu), gapBusy: round1(gap.busy), gcMax: round1(gcPause.max), gcs: gcPause.count };
      h.reset();
      gap.wall = 0;
      gap.cpu = 0;
      gap.busy = 0;
      gcPause.max = 0;
      gcPause.count = 0;
      return v;
    };
    try {
      await new Promise((r) => setTimeout(r, 30));
      phaseLag();

      const t0 = performance.now();
      const compiled = await compileWorkflowAsync(validateWorkflow(seedDoc(), { N: 3162, chunks: 10 }), { maxTaskBytes: 1 << 30 });
      const compileMs = performance.now() - t0;
      await new Promise((r) => setTimeout(r, 20));
      const lagCompile = phaseLag();

      const t1 = performance.now();
      const s = await runInSlices(Scheduler.create(compiled.tasks, compiled.outputs));
      const setupMs = performance.now() - t1;
      let seq = 1;
      let worst = 0;
      const queue: Array<{ key: string; worker: string }> = [];
      let finished = false;
      let failed: string | null = null;
      let executes = 0;
      const take = (ins: Instruction[]) => {
        for (const i of ins) {
          if (i.type === 'execute') {
            queue.push({ key: i.key, worker: i.worker });
            executes++;
          } else if (i.type === 'finished') finished = true;
          else if (i.type === 'failed') failed = i.error;
        }
      };
      for (const [id, kind] of [['vgpu0', 'virtual-gpu'], ['vgpu1', 'virtual-gpu'], ['vgpu2', 'virtual-gpu'], ['cpu0', 'cpu']] as const) take(s.handle({ type: 'worker-added', id, kind, slots: 5 }, seq++));
      const t2 = performance.now();
      await runInSlices(s.startSteps(seq++, take));
      const startMs = performance.now() - t2;
      await new Promise((r) => setTimeout(r, 20));
      const lagSetup = phaseLag();
      const peak = { heap: heapMiB() };

      const limit = SOAK ? Infinity : 20_000;
      let stimuli = 0;
      const t3 = performance.now();
      let head = 0;
      while (!finished && !failed && head < queue.length && stimuli < limit) {
        const { key, worker } = queue[head++];
        // One macrotask per completion, as each worker message is.
        await new Promise<void>((r) => setImmediate(r));
        const a = performance.now();
        take(s.handle({ type: 'task-finished', key, worker, bytes: 8 }, seq++));
        worst = Math.max(worst, performance.now() - a);
        if (++stimuli % 5_000 === 0) peak.heap = Math.max(peak.heap, heapMiB());
      }
      const scheduleMs = performance.now() - t3;
      await new Promise((r) => setTimeout(r, 20));
      const lagSchedule = phaseLag();
      const heapPeak = Math.max(peak.heap, heapMiB());
      const tasks = compiled.tasks.size;
      compiled.tasks.clear();
      gc();
      figures('load-100k-tasks', {
        tasks,
        compileMs: Math.round(compileMs),
        schedulerSetupMs: Math.round(setupMs),
        schedulerStartMs: Math.round(startMs),
        stimuli,
        wholeGraphScheduled: finished,
        worstStimulusMs: round1(worst),
        meanStimulusMs: Math.round((scheduleMs / Math.max(1, stimuli)) * 1000) / 1000,
        // Per phase: monitorEventLoopDelay max, the probe's worst wall and CPU gaps, the longest GC pause and the GC count (ms).
        lagCompile,
        lagSetup,
        lagSchedule,
        heapBeforeMiB: heapBefore,
        heapPeakMiB: heapPeak,
        heapAfterMiB: heapMiB(),
        load1: Math.round(loadavg()[0] * 10) / 10,
        gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
      });
      expect(failed).toBeNull();
      expect(tasks).toBeGreaterThan(100_000);
      // Placement reached deep into the graph: 20 000 completions (or the whole graph under SOAK).
      if (SOAK) expect(finished).toBe(true);
      else expect(stimuli).toBe(limit);
      expect(executes).toBeGreaterThanOrEqual(stimuli);
      // The D8 target: no phase keeps main's loop busy for 100 ms. Asserted on the bound of the
      // loop thread's busy time within one stall (min of its wall and CPU gaps, see the probe),
      // which neither waiting for a core nor parallel GC threads inflate (before the fix: ~2 s
      // for compile, ~1 s for setup, on any machine). Measured stalls in wall time include time
      // waiting for a core: asserted under STRICT, for quiet machines.
      for (const p of [lagCompile, lagSetup, lagSchedule]) expect(p.gapBusy).toBeLessThan(100);
      if (STRICT) for (const p of [lagCompile, lagSetup, lagSchedule]) expect(Math.max(p.loop, p.gapWall)).toBeLessThan(100);
    } finally {
      clearInterval(probe);
      gcObserver.disconnect();
      h.disable();
    }
  });
});
