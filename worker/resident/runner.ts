/**
 * Runs the tasks whose inputs and output can stay on the device: fused programs that the cuda
 * backend runs (it is the first backend supporting them, as worker/execute.ts picks) and matmul
 * blocks when cuda is the worker's matmul backend. Everything else runs as before, on host values.
 */
import type { ChunkProgram, ChunkValue } from '../../common/arrays';
import { bytesPerElement, sizeOf } from '../../common/arrays';
import type { TaskSpec } from '../../common/tasks';
import type { ArrayBackend } from '../kernels/backend';
import type { DeviceApi, DeviceArrayRef } from './device-api';
import { isDeviceRef } from './device-api';
import type { DeviceInput, DeviceTraffic, Lease, ResidentStore } from './store';

export type ResidentPlan = { kind: 'program'; program: ChunkProgram } | { kind: 'matmul'; k: number };

export interface ResidentResult {
  /** The output: on the device (owned by the caller now) or a host value (a partial). */
  output: { device: DeviceArrayRef } | { value: ChunkValue };
  traffic: DeviceTraffic;
}

/**
 * Whether a task runs with device-resident data, given its spec, the worker's backends (in
 * preference order) and the dtype / shape of each input (null: not an array).
 */
export function planResident(spec: TaskSpec, backends: ArrayBackend[], inputs: ({ dtype: string; shape: number[] } | null)[]): ResidentPlan | null {
  if (spec.kind === 'program') {
    const be = backends.find((b) => b.supportsProgram(spec.program));
    return be?.name === 'cuda' ? { kind: 'program', program: spec.program } : null;
  }
  if (spec.kind === 'array-op' && spec.op === 'matmul') {
    const be = backends.find((b) => b.matmul);
    const k = spec.params.k;
    if (be?.name !== 'cuda' || typeof k !== 'number' || !Number.isInteger(k) || k < 1 || inputs.length !== 2 * k) return null;
    const dtype = inputs[0]?.dtype;
    // The same operands the host path sends to cuBLAS (linalg-handlers.ts mm): 2-D, one float dtype.
    const ok = (dtype === 'float64' || dtype === 'float32') && inputs.every((x) => x !== null && x.dtype === dtype && x.shape.length === 2);
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
    if (plan.kind === 'program') {
      const p = plan.program;
      if (!p.reduce) await store.makeRoom(sizeOf(p.shape) * bytesPerElement(p.dtype));
      const r = await api.runProgram(p, values);
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
