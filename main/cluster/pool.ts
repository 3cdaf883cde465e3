/**
 * The worker pool: one worker per GPU (pinned with CUDA_VISIBLE_DEVICES=<uuid>), CPU workers, and
 * optional virtual GPUs (CPU-backed workers labelled virtual, so multi-worker scheduling can be
 * exercised on machines without GPUs). It starts workers, watches heartbeats, notices a dead
 * worker (exit at once, a hung one after `lostAfterMs`, or `busyLostAfterMs` while it runs a task),
 * reports it, and restarts it.
 *
 * A worker whose device is gone is not restarted: it is marked `gone` (listeners hear `gone`, then
 * `down`) when it reports a task error with code `device` (the addon's lost-device errors; it is
 * killed at once), or when a GPU worker died and rediscovery no longer lists its GPU's UUID.
 *
 * Starting a worker (at start, or restarting one that died) is tried `startAttempts` times with a
 * doubling pause between tries; a worker that never gets as far as `ready` is then left out, as
 * Dask carries on with the workers it has: marked gone with why (`leftOut` names it too), and the
 * pool runs without it. Only when no worker at all starts does `start` fail.
 *
 * Restarts of a worker that died after it was ready back off: the n-th within `restartWindowMs`
 * waits restartBackoffMs * 2^(n-1) (capped at 10 s), and after `maxRestarts` in that window the
 * worker is given up (marked gone with the count and its last end; `restart(id)`, the workers
 * panel's button, tries again), so a worker that keeps dying (out of memory) does not loop forever.
 */
import { traceStart } from '../../common/start-trace';
import { randomBytes } from 'node:crypto';
import type { FromWorker, WorkerConfig } from '../../common/messages';
import { discover, type Discovery } from './discovery';
import type { Launcher } from './launcher';
import { gpuWorkersPerDevice, launchEnv, planWorkers, type GpuSharing, type PlanOptions, type PlannedWorker } from './plan';
import { WorkerHandle, type WorkerEnd } from './worker-handle';

export { planWorkers };

export interface PoolOptions extends PlanOptions {
  launcher: Launcher;
  lostAfterMs?: number;
  /**
   * The same for a worker running a task (default 5 minutes, dask's worker-ttl): its heartbeat
   * timer waits while a synchronous js kernel holds its event loop (a GPU worker may run 16 such
   * fallbacks back to back), and that is work, not a hang.
   */
  busyLostAfterMs?: number;
  restart?: boolean;
  /**
   * Lists the GPUs again before a dead GPU worker is restarted (default: nvidia-smi or
   * GPUFLOW_NVIDIA_SMI, without the GPUFLOW_DEVICES restriction: indexes shift when a GPU drops
   * out, UUIDs do not). A worker whose GPU UUID it no longer lists is marked gone.
   */
  rediscover?: () => Promise<Discovery>;
  /** Tries to start each worker before it is left out (default 3). */
  startAttempts?: number;
  /** Pause before the second try, doubled before each later one (default 250 ms). */
  startBackoffMs?: number;
  /** First restart delay, doubled per restart within the window (default 250 ms). */
  restartBackoffMs?: number;
  /** Restarts within `restartWindowMs` before the worker is given up (default 5 in 60 s). */
  maxRestarts?: number;
  restartWindowMs?: number;
}

export interface PoolListener {
  message?(w: WorkerHandle, msg: FromWorker): void;
  up?(w: WorkerHandle): void;
  down?(w: WorkerHandle, end: WorkerEnd): void;
  /** The worker will not be restarted: its device is gone (`reason` says how that was seen). */
  gone?(w: WorkerHandle, reason: string): void;
}

export class WorkerPool {
  readonly workers = new Map<string, WorkerHandle>();
  private readonly listeners = new Set<PoolListener>();
  private readonly token = randomBytes(24).toString('hex');
  private plan: Array<{ config: WorkerConfig; env: Record<string, string> }>;
  private closing = false;
  private watchdog: NodeJS.Timeout | null = null;
  private readonly readyWaiters = new Map<WorkerHandle, { resolve: () => void; reject: (e: Error) => void }>();
  /** Restarts per worker id, for the workers panel and tests. */
  readonly restarts = new Map<string, number>();
  /** Workers whose device is gone, with why: stopped, never restarted, given no tasks. */
  readonly gone = new Map<string, string>();
  /** Workers that did not start after every try, with the last failure (also in `gone`). */
  readonly leftOut = new Map<string, string>();
  /** Recent automatic restarts per worker id (ms timestamps), for the backoff and the limit. */
  private readonly recentRestarts = new Map<string, number[]>();
  /** Workers given up after too many restarts: `restart(id)` starts them again. */
  private readonly givenUp = new Set<string>();
  /** GPU workers started beyond the plan's for runs that share GPUs (lendGpuWorkers), by id. */
  private readonly lent = new Map<string, PlannedWorker>();
  /** GPU workers per GPU with the lent ones, while there are any. */
  private lentSharing: GpuSharing | null = null;
  /** Runs holding the lent workers: the last one's release stops them. */
  private leases = 0;
  /** Lent workers told to stop: dropped from `workers` once they have ended. */
  private readonly retiring = new Set<WorkerHandle>();

  constructor(private opts: PoolOptions) {
    this.plan = planWorkers(opts, this.token);
  }

  /**
   * Plans `sharing.perDevice` GPU worker processes per GPU instead, before `start()` forks any
   * (`gpuflow run`: a search's, read from the graph compiled for this pool's first plan).
   */
  shareGpus(sharing: GpuSharing): void {
    if (this.workers.size > 0) throw new Error('shareGpus: the pool has started its workers');
    this.opts = { ...this.opts, gpuWorkersPerDevice: sharing.perDevice, gpuWorkersWhy: sharing.why };
    this.plan = planWorkers(this.opts, this.token);
  }

  /** GPU worker processes per GPU and why, when the pool has GPU workers (the run record's). */
  get gpuSharing(): GpuSharing | undefined {
    return this.plan.some((p) => p.config.kind === 'gpu') ? gpuWorkersPerDevice(this.opts) : undefined;
  }

  /**
   * Starts GPU workers so that each GPU has `sharing.perDevice` of them, for a run whose search
   * plans more than the pool has (serve: main/engine/gpu-sharing.ts), without waiting for them:
   * the run starts on the workers it has and the new ones join it as they become ready (its
   * trials are held for them, scheduler/placement.ts heldFor). They take only the work of runs
   * that hold a lease (`isLent`; every other run, and every compile, sees the pool as planned),
   * and each gets its share of its GPU's memory as the CLI's k-per-GPU plan gives it. The last
   * lease's `release()` stops them: each holds a CUDA context and a tfjs load that the pool's
   * other runs, planned on one worker per GPU, do not use. The lease's `sharing`: what the run
   * trains on. Null (nothing lent) when the pool has no GPU worker or as many per GPU of its own.
   */
  lendGpuWorkers(sharing: GpuSharing): { sharing: GpuSharing; release(): void } | null {
    const own = this.gpuSharing;
    if (!own || sharing.perDevice <= own.perDevice) return null;
    if (!this.lentSharing || sharing.perDevice > this.lentSharing.perDevice) {
      const more = planWorkers({ ...this.opts, gpuWorkersPerDevice: sharing.perDevice, gpuWorkersWhy: sharing.why }, this.token).filter((p) => p.config.kind === 'gpu' && !this.plan.some((q) => q.config.id === p.config.id));
      this.lentSharing = sharing;
      for (const p of more) {
        this.plan.push(p);
        this.lent.set(p.config.id, p);
        void this.startWithRetries(p, 60_000);
      }
    }
    this.leases++;
    let held = true;
    return {
      sharing: this.lentSharing,
      release: () => {
        if (!held) return;
        held = false;
        if (--this.leases === 0) this.retireLent();
      },
    };
  }

  /**
   * Whether `id` is a GPU worker lent to runs that share GPUs (lendGpuWorkers), or one that was
   * and is stopping: until it has ended, no other run may take it.
   */
  isLent(id: string): boolean {
    return this.lent.has(id) || [...this.retiring].some((w) => w.id === id);
  }

  /** The workers but the lent ones: what every compile and every run without a lease sees. */
  get ownWorkers(): WorkerHandle[] {
    return [...this.workers.values()].filter((w) => !this.isLent(w.id));
  }

  /** Stops the lent workers; the pool is back to its plan (their ids leave `workers` as they end). */
  private retireLent(): void {
    for (const [id, p] of this.lent) {
      this.plan.splice(this.plan.indexOf(p), 1);
      this.gone.delete(id);
      this.leftOut.delete(id);
      this.restarts.delete(id);
      this.recentRestarts.delete(id);
      this.givenUp.delete(id);
      const w = this.workers.get(id);
      if (!w) continue;
      this.retiring.add(w);
      this.readyWaiters.get(w)?.reject(new Error(`${id} is no longer lent`));
      this.readyWaiters.delete(w);
      if (!w.alive) this.dropRetired(w);
      // Still starting (its CUDA context): nothing to finish, and it may not read a shutdown yet.
      else if (w.address === null) w.kill('shutdown', 'SIGKILL');
      else {
        w.send({ type: 'shutdown' });
        void w.waitForExit(2000);
      }
    }
    this.lent.clear();
    this.lentSharing = null;
  }

  private dropRetired(w: WorkerHandle): void {
    this.retiring.delete(w);
    if (this.workers.get(w.id) === w) this.workers.delete(w.id);
  }

  /** Every planned worker's config, known before any has started (Engine.precompile). */
  get plannedConfigs(): WorkerConfig[] {
    return this.plan.map((p) => p.config);
  }

  listen(l: PoolListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /**
   * Starts every planned worker and resolves when each is ready or left out (after
   * `startAttempts` tries); rejects only when none started.
   */
  async start(timeoutMs = 60_000): Promise<void> {
    const started = await Promise.all(this.plan.map((p) => this.startWithRetries(p, timeoutMs)));
    traceStart('workers-ready');
    if (this.plan.length > 0 && !started.some(Boolean)) {
      const why = [...this.leftOut].map(([id, e]) => `${id}: ${e}`).join('; ');
      throw new Error(`no worker started (${why})`);
    }
    // A dead worker is noticed at once through its exit event; the heartbeat only catches a hung
    // one, so its limit is generous: on a loaded machine a busy worker can miss a few seconds.
    const lostAfter = this.opts.lostAfterMs ?? 20_000;
    const busyLostAfter = Math.max(lostAfter, this.opts.busyLostAfterMs ?? 300_000);
    const tick = Math.min(500, lostAfter / 4);
    let lastTick = Date.now();
    this.watchdog = setInterval(() => {
      const now = Date.now();
      // If this process itself was stalled, late heartbeats say nothing about the workers.
      const stalled = now - lastTick > tick * 4;
      lastTick = now;
      for (const w of this.workers.values()) {
        if (stalled) w.lastHeartbeat = Math.max(w.lastHeartbeat, now - tick);
        else if (w.alive && w.address && now - w.lastHeartbeat > (w.running.size > 0 ? busyLostAfter : lostAfter)) w.declareLost();
      }
    }, tick);
    this.watchdog.unref();
  }

  /**
   * With GPU workers in the plan, resolves once the first of them is ready (or when `started`,
   * this pool's `start()`, settles, rejecting as it does); without, it is `started`. `gpuflow run`
   * starts its run then rather than after the last worker: on four H100s the driver makes the four
   * contexts one after another (1.1 s each when made together, 0.14 s for one alone, issue 30), and
   * the workers still starting join the run as they become ready. CPU and virtual GPU workers,
   * which start in a few tens of ms, are waited for as before when there is no GPU worker.
   */
  whenFirstReady(started: Promise<void>): Promise<void> {
    if (!this.plan.some((p) => p.config.kind === 'gpu')) return started;
    const fits = (w: WorkerHandle) => w.config.kind === 'gpu';
    if (this.ready.some(fits)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const off = this.listen({
        up: (w) => {
          if (!fits(w)) return;
          off();
          resolve();
        },
      });
      started.then(
        () => (off(), resolve()),
        (e: unknown) => (off(), reject(e instanceof Error ? e : new Error(String(e)))),
      );
    });
  }

  /** Starts one worker, trying again after a pause when a try fails; false when it was left out. */
  private async startWithRetries(p: { config: WorkerConfig; env: Record<string, string> }, timeoutMs: number): Promise<boolean> {
    const attempts = Math.max(1, this.opts.startAttempts ?? 3);
    let pause = this.opts.startBackoffMs ?? 250;
    let last = '';
    // A lent worker retired while it started is not tried again, nor left out.
    const planned = () => !this.closing && this.plan.includes(p);
    for (let i = 1; i <= attempts; i++) {
      if (!planned()) return false;
      try {
        // The try number reaches the worker, for its logs (and the test-only start fault, worker/faults.ts).
        await this.spawn(p.config, launchEnv(p.env, i), timeoutMs);
        return true;
      } catch (e) {
        last = e instanceof Error ? e.message : String(e);
        if (!planned()) return false;
        if (i < attempts) {
          process.stderr.write(`[${p.config.id}] start ${i} of ${attempts} failed (${last}); trying again in ${pause} ms\n`);
          await new Promise((r) => setTimeout(r, pause));
          pause *= 2;
        }
      }
    }
    const reason = `did not start after ${attempts} ${attempts === 1 ? 'try' : 'tries'}: ${last}`;
    this.leftOut.set(p.config.id, reason);
    const w = this.workers.get(p.config.id);
    if (w) this.markGone(w, `left out: ${reason}`);
    return false;
  }

  private spawn(config: WorkerConfig, env: Record<string, string>, timeoutMs: number): Promise<void> {
    const handle = new WorkerHandle(
      config,
      this.opts.launcher,
      env,
      (w, msg) => this.onMessage(w, msg),
      (w, end) => this.onEnd(w, end),
    );
    this.workers.set(config.id, handle);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        this.readyWaiters.delete(handle);
        handle.kill('init-failed', 'SIGKILL');
        reject(new Error(`worker ${config.id} did not start within ${timeoutMs} ms`));
      }, timeoutMs);
      this.readyWaiters.set(handle, {
        resolve: () => {
          clearTimeout(t);
          resolve();
        },
        reject: (e) => {
          clearTimeout(t);
          reject(e);
        },
      });
    });
  }

  private onMessage(w: WorkerHandle, msg: FromWorker): void {
    if (this.workers.get(w.id) !== w) return;
    if (msg.type === 'log') w.log(msg.message);
    if (msg.type === 'error' && msg.code === 'device') {
      // Killed hard: a process whose CUDA context is broken may hang in its next call.
      this.markGone(w, `device lost: ${msg.message}`);
      w.kill('device-lost', 'SIGKILL');
    }
    if (msg.type === 'ready') {
      this.readyWaiters.get(w)?.resolve();
      this.readyWaiters.delete(w);
      for (const l of this.listeners) l.up?.(w);
    }
    for (const l of this.listeners) l.message?.(w, msg);
  }

  private onEnd(w: WorkerHandle, end: WorkerEnd): void {
    const waiter = this.readyWaiters.get(w);
    this.readyWaiters.delete(w);
    waiter?.reject(new Error(`worker ${w.id} ended before it was ready (${end.reason}, code ${end.code}, signal ${end.signal})`));
    if (this.workers.get(w.id) !== w) {
      // A retired lent worker whose id was lent again meanwhile: its new process has the id now.
      this.retiring.delete(w);
      return;
    }
    for (const l of this.listeners) l.down?.(w, end);
    if (this.retiring.has(w)) return this.dropRetired(w);
    // A worker that died while starting is retried by startWithRetries, not restarted here.
    if (waiter || this.closing || this.opts.restart === false || this.gone.has(w.id) || end.reason === 'shutdown' || end.reason === 'init-failed') return;
    const p = this.plan.find((x) => x.config.id === w.id);
    if (!p) return;
    this.restartAfterEnd(w, end, p).catch((e: unknown) => w.log(`restart failed: ${e instanceof Error ? e.message : String(e)}`));
  }

  /** Restarts a dead worker; a GPU worker only if its GPU is still listed (else it is gone). */
  private async restartAfterEnd(w: WorkerHandle, end: WorkerEnd, p: { config: WorkerConfig; env: Record<string, string> }): Promise<void> {
    const uuid = p.config.kind === 'gpu' ? p.config.gpuUuid : undefined;
    if (uuid !== undefined) {
      const d = await (this.opts.rediscover ?? (() => discover({ devicesEnv: '' })))();
      if (this.closing) return;
      if (!d.gpus.some((g) => g.uuid === uuid)) {
        this.markGone(w, `GPU ${uuid} is no longer listed by nvidia-smi${d.reason ? ` (${d.reason})` : ''}`);
        return;
      }
    }
    const how = `${end.reason}${end.detail ? `: ${end.detail}` : ''}, code ${end.code}, signal ${end.signal}`;
    const now = Date.now();
    const window = this.opts.restartWindowMs ?? 60_000;
    const recent = (this.recentRestarts.get(w.id) ?? []).filter((t) => now - t < window);
    const max = this.opts.maxRestarts ?? 5;
    if (recent.length >= max) {
      this.givenUp.add(w.id);
      this.markGone(w, `ended ${recent.length + 1} times within ${Math.round(window / 1000)} s (last: ${how}); not restarted again automatically`);
      return;
    }
    recent.push(now);
    this.recentRestarts.set(w.id, recent);
    const delay = Math.min(10_000, (this.opts.restartBackoffMs ?? 250) * 2 ** (recent.length - 1));
    this.restarts.set(w.id, (this.restarts.get(w.id) ?? 0) + 1);
    w.log(`ended (${how}); restarting in ${delay} ms`);
    await new Promise((r) => setTimeout(r, delay));
    if (this.closing) return;
    await this.startWithRetries(p, 60_000);
  }

  /** Marks a worker gone (once): it is not restarted and listeners move its work elsewhere. */
  private markGone(w: WorkerHandle, reason: string): void {
    if (this.gone.has(w.id) || this.workers.get(w.id) !== w) return;
    this.gone.set(w.id, reason);
    w.log(`gone: ${reason}`);
    for (const l of this.listeners) l.gone?.(w, reason);
  }

  send(id: string, msg: Parameters<WorkerHandle['send']>[0]): void {
    this.workers.get(id)?.send(msg);
  }

  /** Restarts one worker (the workers panel's button). */
  restart(id: string): void {
    const w = this.workers.get(id);
    if (w && !w.alive && this.givenUp.delete(id)) {
      // Given up after too many restarts: a person asked, so start afresh with a clean count.
      this.gone.delete(id);
      this.recentRestarts.delete(id);
      const p = this.plan.find((x) => x.config.id === id);
      if (p) void this.startWithRetries(p, 60_000);
      return;
    }
    w?.kill('crashed', 'SIGKILL');
  }

  get ready(): WorkerHandle[] {
    return [...this.workers.values()].filter((w) => w.alive && w.address !== null && !this.gone.has(w.id));
  }

  /**
   * Sends every worker `shutdown` and waits for them to exit (SIGKILL after 2 s). With `detach`
   * (the CLI once its run is printed and stored) it does not wait where the launcher allows: the
   * workers end on their own, and those still alive when main exits are killed then.
   */
  async shutdown(opts: { detach?: boolean } = {}): Promise<void> {
    this.closing = true;
    if (this.watchdog) clearInterval(this.watchdog);
    for (const [h, waiter] of this.readyWaiters) waiter.reject(new Error(`pool shut down before ${h.id} was ready`));
    this.readyWaiters.clear();
    const all = [...this.workers.values()];
    for (const w of all) w.send({ type: 'shutdown' });
    await Promise.all(all.map((w) => (opts.detach && w.detach() ? undefined : w.waitForExit(2000))));
  }
}
