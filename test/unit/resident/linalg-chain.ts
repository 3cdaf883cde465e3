/**
 * TSQR's tasks and the one-task qr / svd run two ways on the same row blocks: on device-resident
 * data (worker/resident/linalg.ts through a DeviceApi: the fake device in the unit tests, the
 * addon in the GPU checks, test/gpu/resident-checks.ts) and by the host handlers with the
 * oracle's backends (js), as worker/main.ts would run each. Returns both sets of outputs, the
 * plans taken and the store's traffic before anything was read back.
 */
import type { ChunkValue, NDArray } from '../../../common/arrays';
import type { WorkerConfig } from '../../../common/messages';
import type { TaskSpec } from '../../../common/tasks';
import { executeSpec } from '../../../worker/execute';
import type { ArrayBackend } from '../../../worker/kernels/backend';
import { registerAreaHandlers } from '../../../worker/register';
import type { DeviceApi } from '../../../worker/resident/device-api';
import { planResident, runResident } from '../../../worker/resident/runner';
import { ResidentStore, type StoreStats } from '../../../worker/resident/store';

const config: WorkerConfig = { id: 'gpu0', kind: 'gpu', label: 'test', threads: 1, concurrency: 1, memoryLimit: 2 ** 32, peerToken: 'x'.repeat(16), backends: ['cuda', 'js'], heartbeatMs: 1000 };

type Step = { key: string; spec: TaskSpec; deps: string[] };
const op = (name: string, params: Record<string, unknown> = {}): TaskSpec => ({ kind: 'array-op', op: name, params });

/** The task list of TSQR (svd or qr) over `k` row blocks a0..a{k-1}, as arrays-linalg.ts emits it; `outputs` names the keys to compare. */
export function tsqrSteps(k: number, svd: boolean): { steps: Step[]; outputs: string[] } {
  const steps: Step[] = [];
  const f = [...Array(k).keys()].map((i) => `f${i}`);
  f.forEach((key, i) => steps.push({ key, spec: op('qr-block'), deps: [`a${i}`] }));
  steps.push({ key: 'top', spec: op('qr-top', { svd }), deps: f });
  const q = f.map((_, i) => `q${i}`);
  q.forEach((key, i) => steps.push({ key, spec: op('qr-combine', { index: i, svd }), deps: [f[i], 'top'] }));
  const picks = svd ? ['s', 'vt'] : ['r'];
  for (const p of picks) steps.push({ key: `pick-${p}`, spec: op('pick', { name: p }), deps: ['top'] });
  return { steps, outputs: [...q, ...picks.map((p) => `pick-${p}`)] };
}

/** The one-task path over `k` row blocks. */
export function wholeSteps(k: number, svd: boolean): { steps: Step[]; outputs: string[] } {
  const parts = svd ? ['u', 's', 'vt'] : ['q', 'r'];
  const steps: Step[] = [{ key: 'f', spec: op('factor-whole', { svd }), deps: [...Array(k).keys()].map((i) => `a${i}`) }];
  for (const p of parts) steps.push({ key: `pick-${p}`, spec: op('pick', { name: p }), deps: ['f'] });
  return { steps, outputs: parts.map((p) => `pick-${p}`) };
}

export interface BothWays {
  resident: Record<string, NDArray>;
  host: Record<string, NDArray>;
  /** The resident plan each step took (null: it ran on host values). */
  plans: Record<string, string | null>;
  before: StoreStats;
  store: ResidentStore;
}

const arrayOf = (key: string, v: ChunkValue | undefined): NDArray => {
  if (v?.kind !== 'array') throw new Error(`${key}: expected an array, got ${v?.kind}`);
  return v.array;
};

export async function runBothWays(api: DeviceApi, planBackends: ArrayBackend[], hostBackends: ArrayBackend[], blocks: NDArray[], which: { steps: Step[]; outputs: string[] }): Promise<BothWays> {
  await registerAreaHandlers();
  const store = new ResidentStore(api, 1e12);
  blocks.forEach((b, i) => store.putHost(`a${i}`, { kind: 'array', array: b }));
  const plans: Record<string, string | null> = {};
  for (const s of which.steps) {
    const leases = s.deps.map((d) => store.lease(d)!);
    try {
      const plan = planResident(s.spec, planBackends, leases.map((l) => store.inputInfo(l.key)), true);
      plans[s.key] = plan ? (plan.kind === 'linalg' ? plan.plan.kind : plan.kind) : null;
      if (plan) {
        const r = await runResident(plan, leases, store, api);
        if ('device' in r.output) store.putDevice(s.key, r.output.device);
        else store.putHost(s.key, r.output.value);
      } else {
        const inputs = await Promise.all(leases.map((l) => store.hostOf(l)));
        store.putHost(s.key, (await executeSpec(s.spec, inputs, { config, backends: planBackends, report: () => undefined })).value);
      }
    } finally {
      for (const l of leases) l.release();
    }
  }
  const before = { ...store.stats };
  const resident: Record<string, NDArray> = {};
  for (const k of which.outputs) resident[k] = arrayOf(k, await store.hostValue(k));

  const ctx = { config, backends: hostBackends, report: () => undefined };
  const values = new Map<string, ChunkValue>(blocks.map((b, i) => [`a${i}`, { kind: 'array', array: b }]));
  for (const s of which.steps) values.set(s.key, (await executeSpec(s.spec, s.deps.map((d) => values.get(d)!), ctx)).value);
  const host: Record<string, NDArray> = {};
  for (const k of which.outputs) host[k] = arrayOf(k, values.get(k));
  return { resident, host, plans, before, store };
}

/** Largest |a - b| over two arrays of one shape. */
export function maxAbsDiff(a: NDArray, b: NDArray): number {
  if (a.shape.join() !== b.shape.join()) return Infinity;
  let d = 0;
  for (let i = 0; i < a.data.length; i++) d = Math.max(d, Math.abs(Number(a.data[i]) - Number(b.data[i])));
  return d;
}
