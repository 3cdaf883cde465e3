/**
 * Runs the tasks whose inputs and output can stay on the device: fused programs that the cuda
 * backend runs (it is the first backend supporting them, as worker/execute.ts picks), matmul
 * blocks when cuda is the worker's matmul backend, and TSQR's / the one-task qr and svd's tasks
 * when it is the worker's QR / SVD backend (linalg.ts). Everything else runs as before, on host values.
 */
import type { ChunkProgram, ChunkValue } from '../../common/arrays';
import { bytesPerElement, sizeOf } from '../../common/arrays';
import type { TaskSpec } from '../../common/tasks';
import type { ArrayBackend } from '../kernels/backend';
import type { DeviceApi, DeviceArrayRef, DeviceValue } from './device-api';
import { isDeviceBundle, isDeviceRef } from './device-api';
import { planLinalg, runLinalg, type LinalgPlan } from './linalg';
import type { DeviceInput, DeviceTraffic, InputInfo, Lease, ResidentStore } from './store';

export type ResidentPlan = { kind: 'program'; program: ChunkProgram } | { kind: 'matmul'; k: number } | { kind: 'linalg'; plan: LinalgPlan };

export interface ResidentResult {
  /** The output: on the device (owned by the caller now) or a host value (a partial). */
  output: { device: DeviceValue } | { value: ChunkValue };
  traffic: DeviceTraffic;
}

/**
 * Whether a task runs with device-resident data, given its spec, the worker's backends (in
 * preference order), the dtype / shape of each input (null: not an array; store.inputInfo) and
 * whether the device has resident linear algebra (DeviceApi.factor).
 */
export function planResident(spec: TaskSpec, backends: ArrayBackend[], inputs: (InputInfo | null)[], linalg = false): ResidentPlan | null {
  if (linalg) {
    const plan = planLinalg(spec, backends, inputs);
    if (plan) return { kind: 'linalg', plan };
  }
  if (spec.kind === 'program') {
    // A bool or integer program computes in float64 and is cast on the host (native/chunk-call.ts,
    // its reduction folded there: worker/kernels/host-fold.ts): it runs on host values.
    if (spec.program.dtype !== 'float64' && spec.program.dtype !== 'float32') return null;
    // A program of data-dependent length is sized from its host input first (worker/execute.ts).
    if (spec.program.sizedBy !== undefined) return null;
    const be = backends.find((b) => b.supportsProgram(spec.program));
    return be?.name === 'cuda' ? { kind: 'program', program: spec.program } : null;
  }
  if (spec.kind === 'array-op' && spec.op === 'matmul') {
    const be = backends.find((b) => b.matmul);
    const k = spec.params.k;
    if (be?.name !== 'cuda' || typeof k !== 'number' || !Number.isInteger(k) || k < 1 || inputs.length !== 2 * k) return null;
    const first = inputs[0];
    const dtype = first && 'dtype' in first ? first.dtype : undefined;
    // The same operands the host path sends to cuBLAS (linalg-handlers.ts mm): 2-D, one float dtype.
    const ok = (dtype === 'float64' || dtype === 'float32') && inputs.every((x) => x !== null && 'dtype' in x && x.dtype === dtype && x.shape.length === 2);
    return ok ? { kind: 'matmul', k } : null;
  }
  return null;
}

export async function runResident(plan: ResidentPlan, leases: Lease[], store: ResidentStore, api: DeviceApi): Promise<ResidentResult> {
  const traffic: DeviceTraffic = { reusedInputs: 0, reusedBytes: 0, uploadedBytes: 0, keptBytes: 0 };
  const temps: DeviceArrayRef[] = [];
  // matmul's running sum, freed here when a later block product fails.
  let acc: DeviceArrayRef | null = null;
  try {
    const inputs: DeviceInput[] = [];
    for (const l of leases) {
      const d = await store.deviceOf(l);
      inputs.push(d);
      if (d.temp && isDeviceRef(d.value)) temps.push(d.value);
      if (d.reused && isDeviceRef(d.value)) {
        traffic.reusedInputs++;
        traffic.reusedBytes += d.value.bytes;
      }
      traffic.uploadedBytes += d.uploaded;
    }
    const values = inputs.map((d) => d.value);
    if (plan.kind === 'linalg') {
      const out = await runLinalg(plan.plan, values, store, api);
      traffic.keptBytes = out.bytes;
      return { output: { device: out }, traffic };
    }
    if (plan.kind === 'program') {
      const p = plan.program;
      if (!p.reduce) await store.makeRoom(sizeOf(p.shape) * bytesPerElement(p.dtype));
      const r = await api.runProgram(
        p,
        values.map((v, i) => {
          if (!isDeviceRef(v) && isDeviceBundle(v)) throw new TypeError(`program: input ${i} is a bundle of arrays`);
          return v;
        }),
      );
      if ('value' in r) return { output: { value: r.value }, traffic };
      const ref: DeviceArrayRef = { id: r.id, dtype: p.dtype as 'float64' | 'float32', shape: p.shape, bytes: sizeOf(p.shape) * bytesPerElement(p.dtype) };
      traffic.keptBytes = ref.bytes;
      return { output: { device: ref }, traffic };
    }
    const refs = values.map((v, i) => {
      if (!isDeviceRef(v)) throw new TypeError(`matmul: input ${i} is not a device array`);
      return v;
    });
    for (let l = 0; l < plan.k; l++) {
      const a = refs[l];
      const b = refs[plan.k + l];
      const [m, k] = a.shape;
      const [k2, n] = b.shape;
      if (k2 !== k || b.dtype !== a.dtype) throw new TypeError(`matmul: cannot multiply ${a.dtype}[${m}, ${k}] by ${b.dtype}[${k2}, ${n}]`);
      const bytes = m * n * bytesPerElement(a.dtype);
      await store.makeRoom(bytes);
      const id = await api.matmul(a, b, acc);
      // The running sum stays on the device between the k block products.
      if (acc) store.freeTemp(acc);
      acc = { id, dtype: a.dtype, shape: [m, n], bytes };
    }
    if (!acc) throw new Error('matmul: no blocks to contract');
    const out: DeviceArrayRef = acc;
    acc = null;
    traffic.keptBytes = out.bytes;
    return { output: { device: out }, traffic };
  } catch (e) {
    if (acc) store.freeTemp(acc);
    throw e;
  } finally {
    for (const t of temps) store.freeTemp(t);
  }
}
