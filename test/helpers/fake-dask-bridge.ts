/**
 * A FAKE Dask bridge, for unit tests of main/dask only: it speaks the bridge protocol
 * (common/dask-messages.ts) on stdio but has no Dask behind it. `local:N` gives N pretend workers
 * named 0..N-1; a submitted graph runs in this process with the js reference kernels
 * (worker/execute.ts), tasks assigned round-robin to the pretend workers, each reported as a
 * `task` event; outputs go back as wire Values. `tcp://...` is always unreachable.
 *
 * Knobs (environment): FAKE_BRIDGE_PROTOCOL (the protocol number it announces), FAKE_BRIDGE_CRASH
 * (exit 3 on submit), FAKE_BRIDGE_SLOW_MS (pause per task, for cancel), FAKE_BRIDGE_UNSUPPORTED
 * (fail tasks of that spec kind with unsupported-op).
 */
import { createInterface } from 'node:readline';
import { tableFromIPC, DataType, type Vector } from 'apache-arrow';
import type { ChunkValue, NDArray } from '../../common/arrays';
import type { WireColumn, WireValue } from '../../common/dask-messages';
import type { TaskSpec } from '../../common/tasks';
import { executeSpec } from '../../worker/execute';
import { createJsBackend } from '../../worker/kernels/js';
import { registerAreaHandlers } from '../../worker/register';

const out = (m: unknown): void => void process.stdout.write(JSON.stringify(m) + "\n");
const b64 = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
const arr = (a: NDArray) => {
  if (a.dtype === 'bool') throw new Error('fake bridge: bool arrays have no wire form (the Dask target has no bool dtype)');
  return { dtype: a.dtype, shape: a.shape, data: b64(a.data) };
};

function column(name: string, v: Vector): WireColumn {
  const n = v.length;
  const valid = v.nullCount > 0 ? new Uint8Array(n).map((_, i) => (v.isValid(i) ? 1 : 0)) : null;
  const base = { name, ...(valid ? { valid: b64(valid) } : {}) };
  const t = v.type;
  if (DataType.isDictionary(t) || DataType.isUtf8(t)) return { ...base, type: 'utf8', values: Array.from({ length: n }, (_, i) => (v.isValid(i) ? String(v.get(i)) : null)) };
  if (DataType.isBool(t)) return { ...base, type: 'bool', data: b64(Uint8Array.from({ length: n }, (_, i) => (v.get(i) ? 1 : 0))) };
  if (DataType.isTimestamp(t)) return { ...base, type: 'timestamp[ms]', data: b64(BigInt64Array.from({ length: n }, (_, i) => BigInt(Math.round(Number(v.get(i) ?? 0))))) };
  if (DataType.isInt(t) && t.bitWidth === 64) return { ...base, type: 'int64', data: b64(BigInt64Array.from({ length: n }, (_, i) => BigInt(v.get(i) ?? 0))) };
  if (DataType.isInt(t)) return { ...base, type: 'int32', data: b64(Int32Array.from({ length: n }, (_, i) => Number(v.get(i) ?? 0))) };
  if (DataType.isFloat(t) && t.precision === 1) return { ...base, type: 'float32', data: b64(Float32Array.from({ length: n }, (_, i) => Number(v.get(i) ?? 0))) };
  return { ...base, type: 'float64', data: b64(Float64Array.from({ length: n }, (_, i) => Number(v.get(i) ?? NaN))) };
}

function wire(v: ChunkValue): WireValue {
  switch (v.kind) {
    case 'array': return { kind: 'array', ...arr(v.array) };
    case 'arrays': return { kind: 'arrays', arrays: Object.fromEntries(Object.entries(v.arrays).map(([k, a]) => [k, arr(a)])) };
    case 'partial': return { kind: 'partial', op: v.partial.op, shape: v.partial.shape, fields: Object.fromEntries(Object.entries(v.partial.fields).map(([k, f]) => [k, b64(f)])) };
    case 'json': return { kind: 'json', value: v.value };
    case 'table': {
      const t = tableFromIPC(v.ipc);
      return { kind: 'table', rows: v.rows, columns: t.schema.fields.map((f) => column(f.name, t.getChild(f.name)!)) };
    }
  }
}

interface Task { key: string; deps: string[]; spec: TaskSpec & { code?: string }; node: string; op: string }

let workers: string[] = [];
const cancelled = new Set<string>();
const ctx = { config: { id: 'fake', kind: 'cpu' as const, label: 'fake', threads: 1, concurrency: 1, memoryLimit: 2 ** 32, peerToken: 'x'.repeat(16), backends: ['js' as const], heartbeatMs: 1000 }, backends: [createJsBackend()], report: () => undefined };
const workerOf = (name: string, i: number) => ({ name, address: `tcp://127.0.0.1:${40000 + i}`, host: '127.0.0.1', pid: process.pid, nthreads: 1, memory_limit: 2 ** 30, gpus: [], gpuflow: true });

async function submit(id: string, tasks: Task[], outputs: string[]): Promise<void> {
  if (process.env.FAKE_BRIDGE_CRASH) process.exit(3);
  const values = new Map<string, ChunkValue>();
  let i = 0;
  for (const t of tasks) {
    if (cancelled.has(id)) return out({ type: 'cancelled', id });
    if (process.env.FAKE_BRIDGE_UNSUPPORTED === t.spec.kind) return out({ type: 'failed', id, code: 'unsupported-op', message: `op '${t.op}' (${t.spec.kind}) is not implemented by the bridge`, key: t.key, node: t.node });
    const slow = Number(process.env.FAKE_BRIDGE_SLOW_MS ?? 0);
    if (slow) await new Promise((r) => setTimeout(r, slow));
    const { code, ...spec } = t.spec as TaskSpec & { code?: string };
    if (spec.kind === 'program' && typeof code !== 'string') return out({ type: 'failed', id, code: 'internal', message: `program task ${t.key} came without code`, key: t.key, node: t.node });
    const start = Date.now() / 1000;
    const r = await executeSpec(spec as TaskSpec, t.deps.map((d) => values.get(d)!), ctx);
    values.set(t.key, r.value);
    out({ type: 'task', run: id, key: t.key, worker: workers[i++ % workers.length], thread: 1, start, stop: Date.now() / 1000, status: 'done', nbytes: 8, backend: 'numpy' });
  }
  out({ type: 'result', id, values: Object.fromEntries(outputs.map((k) => [k, wire(values.get(k)!)])) });
  out({ type: 'done', id });
}

await registerAreaHandlers();
out({ type: 'ready', protocol: Number(process.env.FAKE_BRIDGE_PROTOCOL ?? 1), python: 'fake', versions: { dask: 'fake', distributed: 'fake' }, capi: { cpu: false, cuda: false, why: 'fake bridge' } });
for await (const line of createInterface({ input: process.stdin })) {
  let m: { type?: string; id?: string; target?: string; graph?: { tasks: Task[]; outputs: string[] } };
  try {
    m = JSON.parse(line);
  } catch {
    out({ type: 'error', id: null, code: 'bad-message', message: 'not JSON' });
    continue;
  }
  if (m.type === 'connect') {
    if (m.target?.startsWith('local:')) {
      workers = Array.from({ length: Number(m.target.slice(6)) }, (_, i) => String(i));
      out({ type: 'connected', id: m.id, scheduler: 'tcp://127.0.0.1:1', dashboard: null, workers: workers.map(workerOf) });
    } else out({ type: 'error', id: m.id, code: 'unreachable', message: `Timed out trying to connect to ${m.target}` });
  } else if (m.type === 'workers') out({ type: 'workers', id: m.id, workers: workers.map(workerOf) });
  else if (m.type === 'submit') void submit(m.id!, m.graph!.tasks, m.graph!.outputs);
  else if (m.type === 'cancel') cancelled.add(m.id!);
  else if (m.type === 'shutdown') process.exit(0);
  else out({ type: 'error', id: m.id ?? null, code: 'bad-message', message: `unknown type ${m.type}` });
}
process.exit(0);
