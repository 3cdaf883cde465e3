/** A running benchmark's progress: the step on now and the time left, hand-computed. */
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../common/events';
import { BenchProgressTracker } from '../../../main/api/bench-progress';
import { benchLive } from '../../../renderer/logic/bench-live';

const configs = ['1 CPU core', 'all CPU cores', '1 GPU', 'all GPUs'];

describe('BenchProgressTracker', () => {
  it('names the configuration and step, and estimates the runs left at the means so far', () => {
    // 1 warm-up + 3 repetitions; the GPU rows are unavailable (skipped, no runs).
    const p = new BenchProgressTracker('b', 'seed', configs, [true, true, false, false], 1, 3, 1000);
    p.starting(0);
    expect(p.snapshot(1500)).toMatchObject({ configIndex: 0, phase: 'starting', runsDone: 0, elapsedMs: 500, etaMs: null, lastMs: null });
    p.workersUp();
    expect(p.snapshot(1600).phase).toBe('warm-up');
    p.ran(100);
    p.ran(200);
    // 2 runs left here at (100+200)/2 = 150, then 4 runs of 'all CPU cores' at 150: 900.
    expect(p.snapshot(2000)).toMatchObject({ phase: 'timed', runsDone: 2, etaMs: 900, lastMs: 200 });
    p.ran(300);
    p.ran(400);
    p.starting(1);
    p.workersUp();
    p.ran(50);
    // This configuration's own mean (50) for its 3 runs left; nothing after it runs: 150.
    expect(p.snapshot(3000)).toMatchObject({ configIndex: 1, runsDone: 1, etaMs: 150, phase: 'timed' });
  });
});

describe('BenchProgressTracker: the current run and its events so far', () => {
  it('keeps the named run\'s events only, from its start, and forgets them when the next configuration starts', () => {
    const p = new BenchProgressTracker('b', 'seed', configs, [true, true, false, false], 0, 2, 0);
    const ev = (seq: number, runId: string): EngineEvent => ({ type: 'task-state', seq, t: seq, runId, key: `k${seq}`, node: 'x', from: 'ready', to: 'running', worker: 'cpu0', cause: 0 });
    p.starting(0);
    p.record(ev(1, 'r1'));
    // Workers starting, no run yet: none to name, nothing kept.
    expect([p.snapshot(10).runId, p.runEvents()]).toEqual([null, []]);
    p.workersUp();
    p.runStarting('r1');
    p.record(ev(2, 'r1'));
    p.record(ev(3, 'other'));
    p.record({ type: 'log', seq: 4, t: 4, level: 'info', message: 'not a run event' });
    p.record(ev(5, 'r1'));
    expect(p.snapshot(20).runId).toBe('r1');
    expect(p.runEvents().map((e) => e.seq)).toEqual([2, 5]);
    p.ran(5);
    p.runStarting('r2');
    p.record(ev(6, 'r2'));
    expect([p.snapshot(30).runId, p.runEvents().map((e) => e.seq)]).toEqual(['r2', [6]]);
    p.starting(1);
    // The next configuration's workers starting: the run before is named (over), its events dropped.
    expect([p.snapshot(40).phase, p.snapshot(40).runId, p.runEvents()]).toEqual(['starting', 'r2', []]);
  });
});

describe('benchLive', () => {
  it('says where the benchmark is, in words, with the share of runs done', () => {
    const v = benchLive({ benchId: 'b', workflowName: 'seed', configs, configIndex: 1, phase: 'timed', runsDone: 2, warmup: 1, repeat: 3, elapsedMs: 12_000, etaMs: 30_000, lastMs: 800, runId: 'r' });
    expect(v.config).toBe('all CPU cores');
    expect(v.position).toBe('configuration 2 of 4');
    expect(v.step).toBe('repetition 2 of 3');
    // (1 configuration × 4 runs + 2) of 4 × 4 runs.
    expect(v.fraction).toBeCloseTo(6 / 16);
    expect(v.states.map((s) => s.state)).toEqual(['done', 'running', 'waiting', 'waiting']);
    expect(v.left).toBe('about 30 s left');
    expect(benchLive({ benchId: 'b', workflowName: 'seed', configs, configIndex: 0, phase: 'warm-up', runsDone: 0, warmup: 2, repeat: 3, elapsedMs: 10, etaMs: null, lastMs: null, runId: 'r' }).step).toBe('warm-up 1 of 2');
  });
});
