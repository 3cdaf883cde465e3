/**
 * Load: a ~100 000-task graph (the seed workflow in 10x10 chunks) compiled and scheduled in this
 * process while perf_hooks.monitorEventLoopDelay watches the event loop, as `serve` would see it.
 * Scheduling drives the pure Scheduler with four simulated workers; each completion arrives as
 * its own macrotask, as worker messages do. Figures: compile time, worst single stimulus, max
 * event-loop lag, heap before/peak/after.
 *
 * Known defect D8: Scheduler.place() walks (and re-sorts) the whole ready list on every stimulus,
 * so a graph with ~100 000 ready leaves costs O(ready) per completion and O(n^2) overall (minutes).
 * By default 10 completions are sampled; when each costs under 5 ms the whole graph is scheduled,
 * else the total is projected (STRICT then asserts the 100 ms target); SOAK always goes to the end.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../main/engine/compile/compile';
import { Scheduler, type Instruction } from '../../main/engine/scheduler/scheduler';
import { validateWorkflow } from '../../main/engine/validate';
import { figures, seedDoc, SOAK, STRICT } from './helpers';

const heapMiB = () => Math.round(process.memoryUsage().heapUsed / 1048576);
const gc = () => (globalThis as { gc?: () => void }).gc?.();

describe('a 100 000-task graph', () => {
  it('compiles and schedules; event-loop lag and memory are measured', { timeout: SOAK ? 6 * 3600_000 : 180_000 }, async () => {
    gc();
    const heapBefore = heapMiB();
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    await new Promise((r) => setTimeout(r, 50));

    const N = SOAK ? 5000 : 3162;
    const t0 = performance.now();
    const compiled = compileWorkflow(validateWorkflow(seedDoc(), { N, chunks: 10 }), { maxTaskBytes: 1 << 30 });
    const compileMs = performance.now() - t0;
    // Let the histogram's timer fire once after the blocking call, so the stall is recorded.
    await new Promise((r) => setTimeout(r, 30));
    const lagAfterCompile = h.max / 1e6;
    h.reset();

    const t1 = performance.now();
    const s = new Scheduler(compiled.tasks, compiled.outputs);
    const ctorMs = performance.now() - t1;
    let seq = 1;
    let worst = 0;
    const queue: Array<{ key: string; worker: string }> = [];
    let finished = false;
    let failed: string | null = null;
    const take = (ins: Instruction[]) => {
      for (const i of ins) {
        if (i.type === 'execute') queue.push({ key: i.key, worker: i.worker });
        else if (i.type === 'finished') finished = true;
        else if (i.type === 'failed') failed = i.error;
      }
    };
    const timed = (fn: () => Instruction[]) => {
      const a = performance.now();
      const out = fn();
      worst = Math.max(worst, performance.now() - a);
      return out;
    };
    for (const [id, kind] of [['vgpu0', 'virtual-gpu'], ['vgpu1', 'virtual-gpu'], ['vgpu2', 'virtual-gpu'], ['cpu0', 'cpu']] as const) take(timed(() => s.handle({ type: 'worker-added', id, kind, slots: 5 }, seq++)));
    const startMs = (() => {
      const a = performance.now();
      take(s.start(seq++));
      return performance.now() - a;
    })();
    let stimuli = 0;
    const peak = { heap: heapMiB() };
    // Sample 10 completions; if each is cheap (the heap-based place() being written), go on to the
    // end of the graph, else stop and project (the O(ready) place() of HEAD would need hours).
    let limit = SOAK ? Infinity : 10;
    const sampleStart = performance.now();
    while (!finished && !failed && queue.length && stimuli < limit) {
      const { key, worker } = queue.shift()!;
      // One macrotask per completion, as each worker message is.
      await new Promise<void>((r) => setImmediate(r));
      take(timed(() => s.handle({ type: 'task-finished', key, worker, bytes: 8 }, seq++)));
      if (++stimuli % 10_000 === 0) peak.heap = Math.max(peak.heap, heapMiB());
      if (stimuli === 10 && limit === 10 && (performance.now() - sampleStart) / 10 < 5) limit = Infinity;
    }
    const scheduleMs = performance.now() - t1;
    h.disable();
    const lagSchedule = h.max / 1e6;
    const heapPeak = Math.max(peak.heap, heapMiB());
    const tasks = compiled.tasks.size;
    // Drop the graph and scheduler, then measure what is left.
    compiled.tasks.clear();
    gc();
    const heapAfter = heapMiB();
    figures('load-100k-tasks', {
      tasks,
      compileMs: Math.round(compileMs),
      lagDuringCompileMs: Math.round(lagAfterCompile),
      schedulerCtorMs: Math.round(ctorMs),
      schedulerStartMs: Math.round(startMs),
      worstStimulusMs: Math.round(worst * 10) / 10,
      lagDuringSchedulingMs: Math.round(lagSchedule),
      scheduleWallMs: Math.round(scheduleMs),
      stimuli,
      wholeGraphScheduled: finished,
      meanStimulusMs: Math.round(((performance.now() - sampleStart) / Math.max(1, stimuli)) * 1000) / 1000,
      projectedScheduleS: Math.round(((performance.now() - sampleStart) / Math.max(1, stimuli)) * tasks) / 1000,
      heapBeforeMiB: heapBefore,
      heapPeakMiB: heapPeak,
      heapAfterMiB: heapAfter,
      gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
    });
    expect(failed).toBeNull();
    if (limit === Infinity) expect(finished).toBe(true);
    expect(tasks).toBeGreaterThan(100_000);
    // The 100 ms target holds only once D8 is fixed; by default the figures are reported.
    if (STRICT) expect(lagSchedule).toBeLessThan(100);
    // Known defect D8: compileWorkflow is one synchronous call (seconds for 100k tasks), and
    // Scheduler's constructor + start() are too; serve's event loop stalls for all of it.
    if (STRICT) expect(Math.max(lagAfterCompile, ctorMs + startMs)).toBeLessThan(100);
  });
});
