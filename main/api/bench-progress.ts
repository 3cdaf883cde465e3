/**
 * A running benchmark's progress: runBenchmark reports each step (a configuration's workers
 * starting, a run finished), this keeps them and answers `snapshot(now)` with the time so far and
 * an estimate of the time left. The estimate counts the runs still to do: those of the current
 * configuration at its own mean run time once it has one, those of the configurations after it at
 * the mean of every run so far (a guess: GPUs and one CPU core differ), worker start-up left out.
 *
 *   p = new BenchProgressTracker('b1', 'seed', ['1 CPU core', 'all CPU cores'], [true, true], 1, 3, 0)
 *   p.starting(0); p.workersUp(); p.ran(100); p.ran(200)   // warm-up 100 ms, repetition 1 200 ms
 *   p.snapshot(300).etaMs  // 2 runs left here at 150 ms + 4 runs of the next at 150 ms = 900
 *
 * It also keeps the current run's id and every event of it so far (`record` hears the bus): a page
 * that loads mid-run, or learns of a run whose start it never saw (a Dask run's 'run' event carries
 * no benchmark id; the bus's ring may have dropped the start), draws the run's stream from its
 * first task (runEvents), then follows the live events.
 */
import type { BenchProgress } from '../../common/api';
import type { EngineEvent } from '../../common/events';

/** The most events kept of one run (the bus's own ring size): past it the page's stream misses the rest. */
const MAX_RUN_EVENTS = 200_000;

export class BenchProgressTracker {
  private configIndex = 0;
  private runsDone = 0;
  private lastMs: number | null = null;
  private up = false;
  /** The benchmark's latest run (going on now unless its configuration's workers are starting), and its events so far. */
  private runId: string | null = null;
  private events: EngineEvent[] = [];
  /** Run times, per configuration index. */
  private times: number[][];

  constructor(
    readonly benchId: string,
    private readonly workflowName: string,
    /** Every configuration's name, in order; `available[i]` false for one the machine lacks (skipped, no runs). */
    private readonly configs: string[],
    private readonly available: boolean[],
    private readonly warmup: number,
    private readonly repeat: number,
    private readonly startedAt: number,
  ) {
    this.times = configs.map(() => []);
  }

  /** A configuration's workers are starting: its runs begin. */
  starting(configIndex: number): void {
    this.configIndex = configIndex;
    this.runsDone = 0;
    this.up = false;
    // The run before stays named (a page shows its stream as over); its events are not kept.
    this.events = [];
  }

  /** A run of the current configuration is about to start, as `runId`: its events are kept from now. */
  runStarting(runId: string): void {
    this.runId = runId;
    this.events = [];
  }

  /** An event on the bus: kept when it is the current run's. */
  record(e: EngineEvent): void {
    if (this.runId !== null && 'runId' in e && e.runId === this.runId && this.events.length < MAX_RUN_EVENTS) this.events.push(e);
  }

  /** The current run's events so far (none while a configuration's workers start). */
  runEvents(): EngineEvent[] {
    return this.events.slice();
  }

  /** The current configuration's workers are up: its warm-up runs begin. */
  workersUp(): void {
    this.up = true;
  }

  /** A run of the current configuration ended after `ms`. */
  ran(ms: number): void {
    this.runsDone++;
    this.lastMs = ms;
    this.times[this.configIndex].push(ms);
  }

  snapshot(now: number): BenchProgress {
    const runs = this.warmup + this.repeat;
    const all = this.times.flat();
    const own = this.times[this.configIndex];
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    let etaMs: number | null = null;
    if (all.length) {
      const here = (runs - this.runsDone) * (own.length ? mean(own) : mean(all));
      const later = this.available.slice(this.configIndex + 1).filter(Boolean).length * runs * mean(all);
      etaMs = Math.round(here + later);
    }
    return {
      benchId: this.benchId,
      workflowName: this.workflowName,
      configs: this.configs,
      configIndex: this.configIndex,
      phase: !this.up ? 'starting' : this.runsDone < this.warmup ? 'warm-up' : 'timed',
      runsDone: this.runsDone,
      warmup: this.warmup,
      repeat: this.repeat,
      elapsedMs: Math.max(0, now - this.startedAt),
      etaMs,
      lastMs: this.lastMs,
      runId: this.runId,
    };
  }
}
