/**
 * The bridge process: `<python> -m gpuflow_dask.bridge`, JSON lines on stdio (docs/dask.md,
 * "Protocol"). Every line it writes is validated (common/dask-messages.ts); replies are matched to
 * requests by id, everything else goes to the listeners. stderr is free text, passed to `log`.
 * The bridge runs in its own process group, so a forced stop also ends a LocalCluster it started.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { DASK_PROTOCOL, fromBridgeSchema, type FromBridge, type ToBridge } from '../../common/dask-messages';
import { bridgeEnv, DaskSetupError, findPython } from './interpreter';
import { traceOn, traceOrigin, traceStart } from '../../common/start-trace';

export type Ready = Extract<FromBridge, { type: 'ready' }>;
export type BridgeListener = (m: FromBridge) => void;

/** Where a bridge's stderr goes when nobody says otherwise. */
export const defaultBridgeLog = (l: string) => void process.stderr.write(`[dask] ${l}\n`);

export interface BridgeOptions {
  python?: string;
  env?: NodeJS.ProcessEnv;
  /** stderr lines and protocol complaints. */
  log?: (line: string) => void;
  /** How long the bridge may take to import Dask and say `ready`. */
  readyTimeoutMs?: number;
  /** Called with the bridge as soon as its process is spawned (before `ready`): main/dask/early.ts kills it from there. */
  onSpawn?: (b: Bridge) => void;
}

/** Why a bridge that ended before `ready` could not start, from the tail of its stderr. */
function startFailure(python: string, stderr: string, code: number | null): DaskSetupError {
  const tail = stderr.trim().split('\n').slice(-3).join(' | ');
  if (/No module named '?distributed/.test(stderr) || /No module named '?dask/.test(stderr))
    return new DaskSetupError('no-distributed', `${python} has no Dask 'distributed' package: install it (pip install "dask[distributed]", or apt install python3-distributed) or set GPUFLOW_PYTHON (${tail})`);
  if (/No module named '?gpuflow_dask/.test(stderr)) return new DaskSetupError('bridge', `${python} cannot import gpuflow_dask: the repository's python/ folder is missing (${tail})`);
  return new DaskSetupError('bridge', `the Dask bridge (${python} -m gpuflow_dask.bridge) exited with code ${code} before it was ready${tail ? `: ${tail}` : ''}`);
}

export class Bridge {
  private readonly listeners = new Set<BridgeListener>();
  private readonly exitListeners = new Set<(why: string) => void>();
  private pending = new Map<string, { types: string[]; resolve: (m: FromBridge) => void; reject: (e: Error) => void }>();
  private exited: string | null = null;
  private stderrTail = '';
  private nextId = 1;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly python: string,
    private log: (line: string) => void,
  ) {}

  /** Where stderr lines go from now on (the taker of an early bridge: main/dask/early.ts). */
  setLog(log: (line: string) => void): void {
    this.log = log;
  }

  /** Starts the bridge and waits for its `ready` line (checking the protocol version). */
  static async start(opts: BridgeOptions = {}): Promise<{ bridge: Bridge; ready: Ready }> {
    const python = opts.python ?? findPython(opts.env);
    const log = opts.log ?? defaultBridgeLog;
    traceStart('dask-bridge-spawn');
    // Traced, the bridge's lines count from this process's start (python/gpuflow_dask/trace.py).
    const env = traceOn ? { ...bridgeEnv(opts.env), GPUFLOW_TRACE_ORIGIN: traceOrigin() } : bridgeEnv(opts.env);
    const child = spawn(python, ['-m', 'gpuflow_dask.bridge'], { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const bridge = new Bridge(child, python, log);
    bridge.wire();
    opts.onSpawn?.(bridge);
    const ready = await new Promise<Ready>((resolve, reject) => {
      const timer = setTimeout(() => {
        bridge.kill();
        reject(new DaskSetupError('bridge', `the Dask bridge (${python}) did not say ready within ${(opts.readyTimeoutMs ?? 60_000) / 1000} s`));
      }, opts.readyTimeoutMs ?? 60_000);
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(new DaskSetupError('no-python', `cannot start ${python} for the Dask bridge: ${e.message}; install Python 3 with dask and distributed, or set GPUFLOW_PYTHON`));
      });
      const off = bridge.onMessage((m) => {
        if (m.type !== 'ready') return;
        clearTimeout(timer);
        off();
        resolve(m);
      });
      bridge.onExit((why) => {
        clearTimeout(timer);
        reject(startFailure(python, bridge.stderrTail || why, child.exitCode ?? null));
      });
    });
    traceStart('dask-bridge-ready');
    if (ready.protocol !== DASK_PROTOCOL) {
      bridge.kill();
      throw new DaskSetupError('version', `the Dask bridge speaks protocol ${ready.protocol}, this gpuflow speaks ${DASK_PROTOCOL}: update the repository's python/ folder (or gpuflow) so both match`);
    }
    return { bridge, ready };
  }

  private wire(): void {
    const out = createInterface({ input: this.child.stdout });
    out.on('line', (line) => this.onLine(line));
    const err = createInterface({ input: this.child.stderr });
    err.on('line', (line) => {
      // The bridge's phase trace goes where this process's own trace lines go, unprefixed.
      if (traceOn && line.startsWith('gpuflow-trace ')) {
        process.stderr.write(`${line}\n`);
        return;
      }
      this.stderrTail = (this.stderrTail + line + '\n').slice(-4000);
      this.log(line);
    });
    this.child.on('exit', (code, signal) => {
      this.exited = `the Dask bridge exited (${signal ?? `code ${code}`})`;
      for (const p of this.pending.values()) p.reject(new Error(this.exited));
      this.pending.clear();
      for (const l of this.exitListeners) l(this.exited);
    });
    this.child.stdin.on('error', () => undefined);
  }

  private onLine(line: string): void {
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.log(`protocol: not JSON on the bridge's stdout: ${line.slice(0, 200)}`);
      return;
    }
    const parsed = fromBridgeSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      this.log(`protocol: bad message from the bridge at ${issue?.path.join('.') || '(root)'}: ${issue?.message} (${line.slice(0, 200)})`);
      return;
    }
    const m = parsed.data;
    const id = 'id' in m ? m.id : null;
    if (id !== null) {
      const p = this.pending.get(id);
      if (p && p.types.includes(m.type)) {
        this.pending.delete(id);
        p.resolve(m);
      }
    }
    for (const l of this.listeners) l(m);
  }

  onMessage(l: BridgeListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  onExit(l: (why: string) => void): () => void {
    if (this.exited) {
      l(this.exited);
      return () => undefined;
    }
    this.exitListeners.add(l);
    return () => this.exitListeners.delete(l);
  }

  get alive(): boolean {
    return this.exited === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  newId(prefix: string): string {
    return `${prefix}${this.nextId++}`;
  }

  send(m: ToBridge): void {
    if (this.exited) throw new Error(this.exited);
    this.child.stdin.write(JSON.stringify(m) + '\n');
  }

  /** Sends `m` and resolves with the first reply of its id whose type is one of `types`, or an `error` of that id (callers check). */
  request(m: ToBridge & { id: string }, types: FromBridge['type'][], timeoutMs?: number): Promise<FromBridge> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      this.pending.set(m.id, {
        types: [...types, 'error'],
        resolve: (r) => {
          if (timer) clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          if (timer) clearTimeout(timer);
          reject(e);
        },
      });
      if (timeoutMs !== undefined)
        timer = setTimeout(() => {
          this.pending.delete(m.id);
          reject(new Error(`no answer from the Dask bridge to '${m.type}' within ${timeoutMs / 1000} s`));
        }, timeoutMs);
      try {
        this.send(m);
      } catch (e) {
        this.pending.delete(m.id);
        if (timer) clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  }

  /**
   * Asks the bridge to close its client (and any LocalCluster it started); kills its process group
   * after `graceMs`. `fast`: the bridge kills the cluster it started instead of closing it
   * gracefully (a process that exits next: python/gpuflow_dask/fast_exit.py).
   */
  async close(graceMs = 10_000, fast = false): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((r) => this.onExit(() => r()));
    try {
      this.send(fast ? { type: 'shutdown', fast } : { type: 'shutdown' });
      this.child.stdin.end();
    } catch {
      // Already closing.
    }
    const t = setTimeout(() => this.kill(), graceMs);
    await gone;
    clearTimeout(t);
  }

  /** Ends the bridge and whatever it started (its process group) at once. */
  kill(): void {
    if (this.exited || this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      this.child.kill('SIGKILL');
    }
  }
}
