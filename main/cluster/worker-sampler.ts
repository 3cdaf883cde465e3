/**
 * Samples every worker once a second into a bounded ring (the workers panel's time series):
 * utilisation and memory. A real GPU worker reads its device's counters from nvidia-smi
 * (utilization.gpu, memory.used); CPU and virtual GPU workers, which have no such counter, report
 * the share of their task slots busy (from the event stream's task states) and the chunk bytes
 * they hold (their heartbeat). So without GPUs (CI) the virtual workers still draw a series.
 */
import type { WorkerInfo, WorkerSample } from '../../common/api';
import type { EngineEvent } from '../../common/events';
import type { WorkerConfig } from '../../common/messages';
import type { EventBus } from '../engine/event-bus';
import { BusyMeter } from './busy-meter';
import type { GpuInfo } from './discovery';
import { SampleRing } from './sample-ring';

const MiB = 1024 * 1024;

/** What the sampler reads of a worker (WorkerHandle has it). */
export interface SampledWorker {
  readonly config: WorkerConfig;
  readonly heldBytes: number;
  readonly rss: number;
}

export interface SamplerOptions {
  intervalMs?: number;
  /** Samples kept per worker (300 at 1 s: the last five minutes). */
  capacity?: number;
  /** Current GPU counters; only called when a real GPU worker exists. */
  queryGpus?: () => Promise<GpuInfo[]>;
  now?: () => number;
}

export class WorkerSampler {
  private readonly rings = new Map<string, SampleRing<WorkerSample>>();
  private readonly meters = new Map<string, BusyMeter>();
  /** "runId|key" of each running task -> its worker. */
  private readonly runningTask = new Map<string, string>();
  /** Runs of a benchmark (not on this pool), from their first event to their last. */
  private readonly benchRuns = new Set<string>();
  private readonly runningCount = new Map<string, number>();
  /** Latest nvidia-smi reading, by GPU uuid. */
  private gpus = new Map<string, GpuInfo>();
  private gpuQuery: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly now: () => number;
  readonly capacity: number;

  constructor(
    private readonly workers: () => Iterable<SampledWorker>,
    bus: Pick<EventBus, 'subscribe'>,
    private readonly opts: SamplerOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.capacity = opts.capacity ?? 300;
    this.unsubscribe = bus.subscribe((e) => this.onEvent(e));
  }

  start(): this {
    this.timer ??= setInterval(() => this.sample(), this.opts.intervalMs ?? 1000);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  private meter(w: WorkerConfig): BusyMeter {
    let m = this.meters.get(w.id);
    if (!m) {
      this.meters.set(w.id, (m = new BusyMeter(w.concurrency, this.now())));
      m.setRunning(this.now(), this.runningCount.get(w.id) ?? 0);
    }
    return m;
  }

  private setCount(workerId: string, n: number): void {
    n = Math.max(0, n);
    this.runningCount.set(workerId, n);
    this.meters.get(workerId)?.setRunning(this.now(), n);
  }

  private onEvent(e: EngineEvent): void {
    // A benchmark's runs are on its own pools (their events forwarded onto this bus for the page):
    // their workers are not these, even where the ids are the same.
    if (e.type === 'run' && e.benchId !== undefined) {
      if (e.state === 'started') this.benchRuns.add(e.runId);
      else this.benchRuns.delete(e.runId);
      return;
    }
    if ('runId' in e && this.benchRuns.has(e.runId)) return;
    if (e.type === 'task-state') {
      const k = `${e.runId}|${e.key}`;
      const was = this.runningTask.get(k);
      if (was !== undefined && e.to !== 'running') {
        this.runningTask.delete(k);
        this.setCount(was, (this.runningCount.get(was) ?? 0) - 1);
      }
      if (e.to === 'running' && e.worker && was === undefined) {
        this.runningTask.set(k, e.worker);
        this.setCount(e.worker, (this.runningCount.get(e.worker) ?? 0) + 1);
      }
    } else if (e.type === 'run' && e.state !== 'started') {
      // A run that is over runs nothing: a task whose last word was 'running' (a cancel's stopped
      // task, a worker that never answered) frees its slot, so the card goes idle with the run.
      const prefix = `${e.runId}|`;
      for (const [k, w] of this.runningTask) {
        if (!k.startsWith(prefix)) continue;
        this.runningTask.delete(k);
        this.setCount(w, (this.runningCount.get(w) ?? 0) - 1);
      }
    } else if (e.type === 'worker' && e.state === 'down') {
      // Its tasks are gone with it (they are re-run elsewhere under the same keys).
      for (const [k, w] of this.runningTask) if (w === e.worker) this.runningTask.delete(k);
      this.setCount(e.worker, 0);
    }
  }

  private refreshGpus(): void {
    if (this.gpuQuery || !this.opts.queryGpus) return;
    this.gpuQuery = this.opts
      .queryGpus()
      .then((list) => void (this.gpus = new Map(list.map((g) => [g.uuid, g]))))
      .catch(() => undefined)
      .finally(() => (this.gpuQuery = null));
  }

  /** Takes one sample of every worker (the timer calls this; tests call it with their own clock). */
  sample(): void {
    const t = this.now();
    let anyGpu = false;
    for (const w of this.workers()) {
      const c = w.config;
      const busy = this.meter(c).take(t);
      const gpu = c.kind === 'gpu' && c.gpuUuid ? this.gpus.get(c.gpuUuid) : undefined;
      anyGpu ||= c.kind === 'gpu';
      const s: WorkerSample = gpu
        ? { t, util: gpu.utilizationPct / 100, busy, memBytes: gpu.memoryUsedMiB * MiB, rss: w.rss }
        : { t, util: busy, busy, memBytes: w.heldBytes, rss: w.rss };
      let ring = this.rings.get(c.id);
      if (!ring) this.rings.set(c.id, (ring = new SampleRing(this.capacity)));
      ring.push(s);
    }
    // Read asynchronously for the next sample: nvidia-smi takes tens of ms, the loop must not wait.
    if (anyGpu) this.refreshGpus();
  }

  samples(workerId: string): WorkerSample[] {
    return this.rings.get(workerId)?.toArray() ?? [];
  }

  /** Whether this worker's utilisation comes from its GPU's counter (else from task activity). */
  source(config: WorkerConfig): Pick<WorkerInfo, 'utilSource' | 'deviceMemory'> {
    const gpu = config.kind === 'gpu' && config.gpuUuid ? this.gpus.get(config.gpuUuid) : undefined;
    return gpu ? { utilSource: 'gpu-counter', deviceMemory: gpu.memoryTotalMiB * MiB } : { utilSource: 'tasks', deviceMemory: null };
  }
}
