import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../common/events';
import { backendCounts, progressPrinter } from '../../../main/cli/progress';

const progress = (done: number, total: number, runId = 'r1'): EngineEvent => ({ type: 'progress', seq: 0, t: 0, runId, done, total, byNode: {} });
const task = (backend: string, runId = 'r1'): EngineEvent => ({
  type: 'task',
  seq: 0,
  t: 0,
  runId,
  key: 'k',
  node: 'n',
  op: 'program',
  worker: 'dask-0',
  start: 0,
  end: 1,
  bytes: 0,
  backend,
  cause: 0,
});

function harness() {
  let clock = 1000;
  const out: string[] = [];
  const p = progressPrinter(() => 'r1', { lines: true, everyMs: 5000, isTTY: false, write: (s) => out.push(s), now: () => clock });
  return { p, out, advance: (ms: number) => (clock += ms) };
}

describe('progress lines of a Dask run whose stderr is not a terminal', () => {
  it('prints the first figures at once, at most one line per interval, and the last at done()', () => {
    const { p, out, advance } = harness();
    p.onEvent(task('capi-cuda'));
    p.onEvent(progress(1, 84));
    expect(out).toEqual(['dask: 1/84 tasks done (capi-cuda 1) after 0.0 s\n']);
    advance(1000);
    p.onEvent(task('capi-cuda'));
    p.onEvent(task('numpy'));
    p.onEvent(progress(3, 84));
    expect(out).toHaveLength(1); // within the 5 s interval: held back
    advance(4500);
    p.onEvent(task('capi-cuda'));
    p.onEvent(progress(4, 84));
    expect(out[1]).toBe('dask: 4/84 tasks done (capi-cuda 3, numpy 1) after 5.5 s\n');
    advance(100);
    p.onEvent(progress(84, 84));
    p.done();
    expect(out).toEqual([out[0], out[1], 'dask: 84/84 tasks done (capi-cuda 3, numpy 1) after 5.6 s\n']);
  });

  it("ignores another run's events and prints nothing more at done() when nothing is pending", () => {
    const { p, out } = harness();
    p.onEvent(task('numpy', 'other'));
    p.onEvent(progress(5, 10, 'other'));
    expect(out).toEqual([]);
    p.onEvent(progress(10, 10));
    p.done();
    expect(out).toEqual(['dask: 10/10 tasks done after 0.0 s\n']);
  });

  it('stays silent on a non-terminal stderr without lines (a local run)', () => {
    const out: string[] = [];
    const p = progressPrinter(() => 'r1', { isTTY: false, write: (s) => out.push(s), now: () => 0 });
    p.onEvent(progress(1, 2));
    p.done();
    expect(out).toEqual([]);
  });

  it('orders backends by count, then name', () => {
    expect(
      backendCounts(
        new Map([
          ['numpy', 2],
          ['capi-cuda', 5],
          ['capi-cpu', 2],
        ]),
      ),
    ).toBe('capi-cuda 5, capi-cpu 2, numpy 2');
  });
});
