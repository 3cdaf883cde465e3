/**
 * One worker process, wrapped: its readonly config, its address for peers, its backends, its
 * heartbeat, and a typed end. Every log line starts with `[gpu0 1234]`.
 */
import { formatIssues, fromWorkerSchema, type FromWorker, type PeerAddress, type ToWorker, type WorkerConfig } from '../../common/messages';
import { batcher, unbatch, type Batcher } from '../../common/batch';
import type { LaunchedProcess, Launcher } from './launcher';

/** Why a worker ended: a closed set, shown in events and the workers panel. */
export type EndReason = 'shutdown' | 'crashed' | 'killed' | 'heartbeat-timeout' | 'init-failed' | 'device-lost';

export interface WorkerEnd {
  reason: EndReason;
  code: number | null;
  signal: string | null;
  /** What the launcher knows beyond the code (Electron's child-process-gone reason, e.g. 'oom'). */
  detail?: string;
}

/** Signals a process gets for its own fault (a bad access, an abort), not from another process. */
const FAULT_SIGNALS = new Set(['SIGSEGV', 'SIGBUS', 'SIGABRT', 'SIGFPE', 'SIGILL', 'SIGTRAP', 'SIGSYS']);

/**
 * Whether the worker ended by its own doing (an uncaught error, a fatal signal), not killed from
 * outside (SIGKILL/SIGTERM from a person, the OOM killer, our heartbeat watchdog): only such an
 * end counts against the tasks it ran as poison (scheduler MAX_CRASHES).
 */
export function endedByItself(end: WorkerEnd): boolean {
  return end.reason === 'crashed' || (end.reason === 'killed' && end.signal !== null && FAULT_SIGNALS.has(end.signal));
}

export interface BackendState {
  name: string;
  available: boolean;
  reason?: string;
}

/** Detached workers still alive: killed when main exits (WorkerHandle.detach). */
const lingering = new Set<LaunchedProcess>();
let killOnExitHooked = false;

/** Kills the detached workers still alive (synchronous: it runs on main's 'exit'); exported for tests. */
export function killDetached(): void {
  for (const p of lingering) p.kill('SIGKILL');
}

export class WorkerHandle {
  private proc: LaunchedProcess;
  private readonly out: Batcher<ToWorker>;
  private ended: WorkerEnd | null = null;
  private endWaiters: Array<(e: WorkerEnd) => void> = [];
  private intended: EndReason | null = null;
  /** Peer address, known once the worker says `ready`. */
  address: PeerAddress | null = null;
  backends: BackendState[] = [];
  /** When the worker last said anything (every message is a sign of life, not only heartbeats). */
  lastHeartbeat = Date.now();
  /**
   * Tasks sent to it and not yet finished (running or queued there). A worker whose event loop runs a long synchronous
   * js kernel sends nothing until it returns, so the pool gives a busy worker longer to answer.
   */
  readonly running = new Set<string>();
  rss = 0;
  heldBytes = 0;

  constructor(
    /** Identity, resources and limits handed to the worker at init. */
    readonly config: WorkerConfig,
    launcher: Launcher,
    /** Extra environment, e.g. CUDA_VISIBLE_DEVICES pinning a GPU worker to its device. */
    readonly env: Record<string, string>,
    private readonly onMessage: (w: WorkerHandle, msg: FromWorker) => void,
    private readonly onEnd: (w: WorkerHandle, end: WorkerEnd) => void,
  ) {
    this.proc = launcher.launch({ env, name: `gpuflow-${config.id}` });
    this.out = batcher<ToWorker>((m) => this.proc.send(m));
    this.proc.onMessage((raw) => unbatch(raw, (one) => this.receive(one)));
    this.proc.onExit(({ code, signal, detail }) => {
      const reason: EndReason = this.intended ?? (signal ? 'killed' : code === 0 ? 'shutdown' : 'crashed');
      this.finish(detail ? { reason, code, signal, detail } : { reason, code, signal });
    });
    this.send({ type: 'init', config });
  }

  private receive(raw: unknown): void {
    const parsed = fromWorkerSchema.safeParse(raw);
    if (!parsed.success) {
      this.log(`protocol error from worker: ${formatIssues(parsed.error)}`);
      return;
    }
    const msg = parsed.data;
    if (msg.type === 'ready') {
      this.address = msg.address;
      this.backends = msg.backends;
    }
    this.lastHeartbeat = Date.now();
    if (msg.type === 'done' || msg.type === 'error') this.running.delete(msg.key);
    if (msg.type === 'heartbeat') {
      this.rss = msg.rss;
      this.heldBytes = msg.heldBytes;
    }
    this.onMessage(this, msg);
  }

  get id(): string {
    return this.config.id;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  get alive(): boolean {
    return this.ended === null;
  }

  log(message: string): void {
    process.stderr.write(`[${this.config.id} ${this.proc.pid ?? '-'}] ${message}\n`);
  }

  /** Queued and written with the others of this event-loop turn (common/batch.ts). */
  send(msg: ToWorker): void {
    if (!this.alive) return;
    // Running (or queued behind running ones) from here until its done or error: the worker
    // sends no 'started' (one message a task fewer); what matters is that it is busy.
    if (msg.type === 'execute') this.running.add(msg.key);
    this.out.send(msg);
    if (msg.type === 'shutdown') this.out.flush();
  }

  /** Ends the worker; idempotent. `reason` is what the end will be reported as. */
  kill(reason: EndReason = 'shutdown', signal: NodeJS.Signals = 'SIGTERM'): void {
    if (!this.alive) return;
    this.intended ??= reason;
    this.proc.kill(signal);
  }

  /**
   * Lets main exit without waiting for this worker's own exit (sent `shutdown` first): it no
   * longer holds main's event loop open, and whatever of it is still alive when main exits is
   * killed then (a worker that ignores shutdown does not outlive main). False where the launcher
   * cannot (utilityProcess): wait with waitForExit instead.
   */
  detach(): boolean {
    if (!this.alive) return true;
    const proc = this.proc;
    if (!proc.detach) return false;
    proc.detach();
    lingering.add(proc);
    this.endWaiters.push(() => lingering.delete(proc));
    if (!killOnExitHooked) {
      killOnExitHooked = true;
      process.once('exit', killDetached);
    }
    return true;
  }

  /** Resolves when the worker has exited; escalates to SIGKILL after `ms`. */
  waitForExit(ms: number): Promise<WorkerEnd> {
    if (this.ended) return Promise.resolve(this.ended);
    return new Promise((resolve) => {
      this.endWaiters.push(resolve);
      const t = setTimeout(() => this.proc.kill('SIGKILL'), ms);
      this.endWaiters.push(() => clearTimeout(t));
    });
  }

  /**
   * Called when the heartbeat is late: the worker is declared gone at once (its tasks move on)
   * and killed hard, since a hung process will not answer a polite signal.
   */
  declareLost(): void {
    if (!this.alive) return;
    this.intended ??= 'heartbeat-timeout';
    this.proc.kill('SIGKILL');
  }

  private finish(end: WorkerEnd): void {
    if (this.ended) return;
    this.ended = end;
    this.onEnd(this, end);
    for (const w of this.endWaiters) w(end);
    this.endWaiters = [];
  }
}
