/**
 * The worker process, started once per device by the pool (main/cluster). It receives tasks from
 * main, fetches their dependencies from the peers that hold them (worker/peer.ts), runs them on
 * its backends, keeps the outputs until main releases them, and serves them to peers.
 *
 * Lifecycle (its phases and what each message does in them: worker/lifecycle.ts): wait for `init`
 * -> load backends -> start the peer server -> `ready` -> heartbeats every `heartbeatMs` -> tasks,
 * up to `concurrency` at once in arrival order (dependencies of queued tasks are fetched while
 * earlier tasks run) -> `shutdown` or parent gone -> exit.
 */
import { traceStart } from '../common/start-trace';
import type { ChunkValue, JsonValue } from '../common/arrays';
import { valueBytes } from '../common/arrays';
import { formatIssues, INLINE_VALUE_BYTES, toWorkerSchema, type ToWorker, type Transfer, type WorkerConfig } from '../common/messages';
import type { ArrayBackend } from './kernels/backend';
import { createBackends } from './backends';
import { parentChannel } from './channel';
import { warmLibraries } from './cuda-warmup';
import { deviceWarmupWhen, warmDevice, warmThreads } from './device-warmup';
import { isDeviceLost } from './device-lost';
import { lifecycleStep, type LifecycleEvent, type WorkerPhase } from './lifecycle';
import { executeSpec } from './execute';
import { failsToStart, faultsFor, injectFaults, startDelayMs } from './faults';
import { fetchChunks, startPeerServer, type PeerImporter } from './peer';
import type { DeviceApi } from './resident/device-api';
import { ResidentImporter, residentExporter } from './resident/ipc';
import { planResident, runResident } from './resident/runner';
import { residencyFor } from './resident/setup';
import { ResidentStore, type DeviceTraffic, type Lease } from './resident/store';

// Messages wait up to 1 ms for others while more than one task runs (a GPU worker's kernels end
// one a turn): one IPC write for several dones (common/batch.ts).
// GPUFLOW_BATCH_LINGER_MS (default 1, 0: off) for A/B runs on the GPU machine.
const lingerMs = Number(process.env.GPUFLOW_BATCH_LINGER_MS ?? 1) || 0;
const channel = parentChannel({ ms: lingerMs, when: () => lingerMs > 0 && running > 1 });
// The chunks this worker holds: host values, and on GPU workers with residency on, device
// buffers that feed the next cuda task without a trip through host memory (worker/resident/).
let store = new ResidentStore(null, 0);
let phase: WorkerPhase = 'awaiting-init';
/** Moves the lifecycle on `event` and exits when it says so; returns what else to do. */
function step(event: LifecycleEvent): 'init' | 'run' | 'none' {
  const { phase: next, action } = lifecycleStep(phase, event);
  phase = next;
  if (action.do === 'reject') log('error', action.error);
  if (action.do === 'exit') {
    // With the parent gone there is no one to flush to (a send would fail).
    if (event !== 'parent-gone') channel.flush();
    process.exit(action.code);
  }
  return action.do === 'init' || action.do === 'run' ? action.do : 'none';
}
let device: DeviceApi | null = null;
let config: WorkerConfig | null = null;
let backends: ArrayBackend[] = [];
// Device-to-device fetches from other GPU workers (CUDA IPC); null with why when off.
let importer: ResidentImporter | null = null;
let ipcOffReason = 'not started';
// Keys being fetched now, so tasks needing the same chunk share one transfer.
const inflight = new Map<string, Promise<void>>();
// Tasks run up to `concurrency` at a time (GPU workers overlap async kernel calls; CPU workers
// run one, their native kernels being multithreaded); the rest wait in arrival order.
let running = 0;
const waiting: Array<() => void> = [];

async function slot(cfg: WorkerConfig): Promise<() => void> {
  if (running >= cfg.concurrency) await new Promise<void>((r) => waiting.push(r));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

/** An input could not be fetched from its peer: the task did not fail, its input was lost. */
class FetchError extends Error {}

function log(level: 'info' | 'warn' | 'error', message: string): void {
  channel.send({ type: 'log', level, message: `[${config?.id ?? 'worker'} ${process.pid}] ${message}` });
}

interface Deps {
  /** One per dependency, in the task's order: the values stay held until the task is over. */
  leases: Lease[];
  transfers: Transfer[];
}

/** How to fetch from a peer: by IPC (an importer), or through the host with why. */
function ipcWith(p: { host: string; workerId: string }): { importer?: PeerImporter; peer?: string; noIpcReason?: string } {
  if (!importer) return { noIpcReason: ipcOffReason };
  if (p.host !== '127.0.0.1' && p.host !== 'localhost' && p.host !== '::1') return { noIpcReason: `${p.workerId} is on another host` };
  const off = importer.offFor(p.workerId);
  return off ? { noIpcReason: off } : { importer, peer: p.workerId };
}

async function gatherDeps(msg: Extract<ToWorker, { type: 'execute' }>, cfg: WorkerConfig): Promise<Deps> {
  const byPeer = new Map<string, { host: string; port: number; workerId: string; keys: string[] }>();
  const shared: Promise<void>[] = [];
  for (const d of msg.deps) {
    if (store.has(d.key)) continue;
    const pending = inflight.get(d.key);
    // A small output main sent along (INLINE_VALUE_BYTES): kept as a fetched copy would be.
    if (d.value && !pending) {
      store.putHost(d.key, d.value);
      continue;
    }
    if (pending) {
      // Another task is fetching it: one transfer serves both (its record is on that task).
      shared.push(pending.catch(() => undefined));
      continue;
    }
    if (!d.at) throw new FetchError(`dependency '${d.key}' is not held here and no live peer holds it`);
    const id = `${d.at.host}:${d.at.port}`;
    const entry = byPeer.get(id) ?? { host: d.at.host, port: d.at.port, workerId: d.at.workerId, keys: [] };
    if (!entry.keys.includes(d.key)) entry.keys.push(d.key);
    byPeer.set(id, entry);
  }
  const transfers: Transfer[] = [];
  const fetches = [...byPeer.values()].map((p) => {
    const run = (async () => {
      const t0 = performance.now();
      const how = ipcWith(p);
      const got = await fetchChunks(p.host, p.port, cfg.peerToken, p.keys, { ...how, onOrphan: (ref) => device?.free(ref.id) }).catch((e: unknown) => {
        throw new FetchError(`fetching ${p.keys.join(', ')} from ${p.workerId}: ${e instanceof Error ? e.message : String(e)}`);
      });
      const ms = performance.now() - t0;
      for (const [key, f] of got) {
        if (f.via === 'ipc') {
          store.putDevice(key, f.ref);
          transfers.push({ key, from: p.workerId, bytes: f.ref.bytes, ms, via: 'ipc' });
        } else {
          store.putHost(key, f.value);
          transfers.push({ key, from: p.workerId, bytes: valueBytes(f.value), ms, via: 'host', ...(f.reason ? { reason: f.reason } : {}) });
        }
      }
    })();
    const mine = run.then(() => undefined);
    for (const k of p.keys) inflight.set(k, mine);
    void mine.catch(() => undefined).finally(() => {
      for (const k of p.keys) if (inflight.get(k) === mine) inflight.delete(k);
    });
    return run;
  });
  await Promise.all([...fetches, ...shared]);
  const leases: Lease[] = [];
  for (const d of msg.deps) {
    const l = store.lease(d.key);
    if (!l) {
      for (const x of leases) x.release();
      throw new FetchError(`dependency '${d.key}' could not be fetched`);
    }
    leases.push(l);
  }
  return { leases, transfers };
}

let executed = 0;

async function execute(msg: Extract<ToWorker, { type: 'execute' }>, cfg: WorkerConfig): Promise<void> {
  // Numbered on arrival: read after the slot wait, every task queued behind it got the same number.
  const n = ++executed;
  if (n === 1) traceStart('worker-first-task');
  try {
    const deps = gatherDeps(msg, cfg);
    // Fetching runs while earlier tasks compute; its failure is handled where it is awaited.
    deps.catch(() => undefined);
    const free = await slot(cfg);
    try {
      await runTask(msg, cfg, deps);
    } finally {
      // The first tasks' ends, for the start-up trace (what a short run's first tasks wait on).
      if (n <= 24) traceStart(`worker-task-${n}-${msg.spec.kind === 'array-op' ? msg.spec.op : msg.spec.kind}-done`);
      free();
      void deps.then((d) => d.leases.forEach((l) => l.release()), () => undefined);
    }
  } catch (e) {
    // Neither a lost input (its holder died) nor a lost device is the task's fault: main re-queues
    // the task, and for a lost device marks this worker gone.
    const code = e instanceof FetchError ? 'fetch' : isDeviceLost(e) ? 'device' : undefined;
    channel.send({ type: 'error', key: msg.key, message: e instanceof Error ? e.message : String(e), code });
  }
}

async function runTask(msg: Extract<ToWorker, { type: 'execute' }>, cfg: WorkerConfig, deps: Promise<Deps>): Promise<void> {
  const { leases, transfers } = await deps;
  // No 'started' message: main counts a task as running from its execute on (worker-handle.ts),
  // and 'done' carries the start time, so a task costs one message back, not two.
  const startedAt = Date.now();
  const plan = device ? planResident(msg.spec, backends, leases.map((l) => store.inputInfo(l.key)), device.factor !== undefined) : null;
  if (plan && device) {
    // Inputs already on the device are read in place; an array output stays there.
    const r = await runResident(plan, leases, store, device);
    const out = r.output;
    const bytes = 'device' in out ? out.device.bytes : valueBytes(out.value);
    if (!fits(msg, cfg, bytes)) {
      if ('device' in out) store.freeTemp(out.device);
      return;
    }
    if ('device' in out) store.putDevice(msg.key, out.device);
    else store.putHost(msg.key, out.value);
    done(msg.key, bytes, 'cuda', startedAt, transfers, r.traffic, 'device' in out ? undefined : out.value);
    return;
  }
  const inputs = await Promise.all(leases.map((l) => store.hostOf(l)));
  const ctx = { config: cfg, backends, report: (payload: Record<string, JsonValue>) => channel.send({ type: 'progress', key: msg.key, payload }) };
  const { value, backend } = await executeSpec(msg.spec, inputs, ctx);
  const bytes = valueBytes(value);
  if (!fits(msg, cfg, bytes)) return;
  store.putHost(msg.key, value);
  done(msg.key, bytes, backend, startedAt, transfers, undefined, value);
}

/** Whether an output of `bytes` fits under the memory limit; if not, says so for the task. */
function fits(msg: Extract<ToWorker, { type: 'execute' }>, cfg: WorkerConfig, bytes: number): boolean {
  if (store.heldBytes + bytes <= cfg.memoryLimit) return true;
  channel.send({
    type: 'error',
    key: msg.key,
    code: 'memory',
    message: `node '${msg.node}': task ${msg.key} output of ${bytes} bytes would exceed worker ${cfg.id}'s memory limit of ${cfg.memoryLimit} bytes (holding ${store.heldBytes})`,
  });
  return false;
}

/** `value`: the host output, sent along when it is small (INLINE_VALUE_BYTES). */
function done(key: string, bytes: number, backend: string, startedAt: number, transfers: Transfer[], traffic?: DeviceTraffic, value?: ChunkValue): void {
  const inline = value !== undefined && bytes <= INLINE_VALUE_BYTES ? { value } : {};
  channel.send({ type: 'done', key, bytes, backend, startedAt, endedAt: Date.now(), transfers, ...(traffic ? { device: traffic } : {}), ...inline });
}

async function init(cfg: WorkerConfig): Promise<void> {
  config = cfg;
  traceStart('worker-init');
  if (failsToStart(cfg.id)) throw new Error('test fault injection: this start fails (GPUFLOW_FAULT_START_EXIT)');
  const delay = startDelayMs(cfg.id); // test-only, as above
  if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  const made = await createBackends(cfg);
  traceStart('worker-backends');
  const fault = faultsFor(cfg.id); // test-only (worker/faults.ts); null unless a test sets it
  backends = fault ? injectFaults(made.backends, fault) : made.backends;
  if (fault) log('warn', `test fault injection: ${fault.fault} after ${fault.after} kernel calls`);
  const residency = residencyFor(cfg, backends);
  device = residency.api;
  store = new ResidentStore(device, residency.limit);
  if (device) log('info', `device-resident chunks on (up to ${residency.limit} bytes of device memory)`);
  const ipc = residency.ipc;
  importer = ipc ? new ResidentImporter(store, ipc) : null;
  ipcOffReason = residency.ipcReason;
  if (ipc) log('info', 'chunks move to and from other GPU workers by CUDA IPC where they can');
  traceStart('worker-residency');
  // A GPU worker's first kernels, streams and pools, paid while the peer server starts and, by
  // default, before it says ready (worker/device-warmup.ts).
  const when = device ? deviceWarmupWhen() : 'off';
  const warmed = device && when !== 'off' ? warmDevice(device, warmThreads(cfg.concurrency)).then((r) => traceStart(`worker-device-warm-${r.programs}`)) : null;
  // A chunk on the device goes to a GPU peer by IPC; to others it is copied to the host once.
  const server = await startPeerServer(cfg.peerToken, (key) => store.hostValue(key), {
    exporter: ipc ? residentExporter(store, ipc, (m) => log('warn', m)) : undefined,
    noExportReason: residency.ipcReason,
  });
  if (when === 'before-ready') await warmed;
  traceStart('worker-ready');
  // Ready before the message goes, so a task sent in answer to it is accepted.
  step('started');
  channel.send({ type: 'ready', pid: process.pid, address: { workerId: cfg.id, host: '127.0.0.1', port: server.port }, backends: made.status });
  setInterval(() => {
    channel.send({ type: 'heartbeat', t: Date.now(), rss: process.memoryUsage.rss(), heldBytes: store.heldBytes, heldKeys: store.size });
  }, cfg.heartbeatMs).unref();
}

channel.onMessage((raw) => {
  const parsed = toWorkerSchema.safeParse(raw);
  if (!parsed.success) {
    log('error', `protocol error: ${formatIssues(parsed.error)}`);
    return;
  }
  const msg = parsed.data;
  switch (msg.type) {
    case 'init':
      if (step('init') !== 'init') return;
      init(msg.config).catch((e: unknown) => {
        log('error', `init failed: ${e instanceof Error ? e.message : String(e)}`);
        step('start-failed');
      });
      return;
    case 'execute': {
      if (step('execute') !== 'run' || !config) return;
      void execute(msg, config);
      return;
    }
    case 'release':
      // Device buffers are freed here too (or when the last task reading them is over).
      for (const k of msg.keys) store.release(k);
      return;
    case 'fetch': {
      const { requestId, key } = msg;
      store.hostValue(key).then(
        (v) => channel.send({ type: 'value', requestId, key, value: v ?? null, error: v ? undefined : `'${key}' is not held by this worker` }),
        (e: unknown) => channel.send({ type: 'value', requestId, key, value: null, error: `'${key}' could not be copied from the device: ${e instanceof Error ? e.message : String(e)}` }),
      );
      return;
    }
    case 'warm-libraries':
      // In any phase: it only queues work behind the CUDA context (a no-op without the warm-up).
      warmLibraries();
      return;
    case 'shutdown':
      step('shutdown');
  }
});

// A worker whose parent is gone has nothing left to do.
process.on('disconnect', () => step('parent-gone'));
