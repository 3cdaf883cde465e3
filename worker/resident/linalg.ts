/**
 * Linear algebra on device-resident blocks (docs/linalg.md): TSQR's tasks and the one-task qr /
 * svd keep their factors on the device as bundles (DeviceBundleRef), so no block crosses to the
 * host between tasks. The same specs run on host values in worker/kernels/arrays/linalg-handlers.ts;
 * the outputs are the same bundles (the device's are row-major float64 with the js conventions,
 * diag(R) >= 0 and the js sign rule, applied on the device), so a bundle may be downloaded and
 * read by the host handlers, and a worker's results do not depend on which path ran.
 *
 *   qr-block      A_i -> {q, r}                   one cuSOLVER QR (factor of one block)
 *   qr-top        {r} of every block -> {q2, r} (+ {u, s, vt} of R for the svd)
 *   qr-combine    Q_i = Q1_i (Q2_i [U_r])        rows of q2 copied, then one or two gemms
 *   factor-whole  row blocks -> {q, r} / {u, s, vt} of the stacked matrix
 *   pick          one part of a bundle, as a second id of its buffer (no copy)
 */
import type { TaskSpec } from '../../common/tasks';
import type { ArrayBackend } from '../kernels/backend';
import type { DeviceApi, DeviceArrayRef, DeviceBundleRef, DeviceValue } from './device-api';
import { isDeviceBundle, isDeviceRef } from './device-api';
import type { InputInfo, ResidentStore } from './store';

export type LinalgPlan =
  | { kind: 'qr-block' }
  | { kind: 'qr-top'; svd: boolean }
  | { kind: 'qr-combine'; index: number; svd: boolean }
  | { kind: 'factor-whole'; svd: boolean }
  | { kind: 'pick'; name: string };

const LINALG_OPS = new Set(['qr-block', 'qr-top', 'qr-combine', 'factor-whole', 'pick']);

const f64Matrix = (x: InputInfo | null): boolean => x !== null && 'dtype' in x && x.dtype === 'float64' && x.shape.length === 2;
const deviceBundle = (x: InputInfo | null, parts: string[]): boolean => x !== null && 'parts' in x && x.device && parts.every((p) => x.parts.includes(p));

/**
 * Whether a linear-algebra task runs on device-resident data: when cuda is the worker's first
 * backend with a QR and an SVD (as the host handlers pick it), and its inputs are what the device
 * path takes: float64 matrices (uploaded if on the host) for the factorizations, bundles already
 * on the device for the steps that read them (otherwise the host handlers run, downloading).
 */
export function planLinalg(spec: TaskSpec, backends: ArrayBackend[], inputs: (InputInfo | null)[]): LinalgPlan | null {
  if (spec.kind !== 'array-op' || !LINALG_OPS.has(spec.op)) return null;
  if (backends.find((b) => b.qr && b.svd)?.name !== 'cuda') return null;
  const svd = spec.params.svd === true;
  switch (spec.op) {
    case 'qr-block': {
      const a = inputs[0];
      return inputs.length === 1 && f64Matrix(a) && a && 'shape' in a && a.shape[0] >= a.shape[1] ? { kind: 'qr-block' } : null;
    }
    case 'factor-whole': {
      if (inputs.length === 0 || !inputs.every(f64Matrix)) return null;
      const shapes = inputs.map((x) => (x as { shape: number[] }).shape);
      const m = shapes.reduce((s, x) => s + x[0], 0);
      const n = shapes[0][1];
      return n > 0 && m >= n && shapes.every((x) => x[1] === n) ? { kind: 'factor-whole', svd } : null;
    }
    case 'qr-top':
      return inputs.length > 0 && inputs.every((x) => deviceBundle(x, ['q', 'r'])) ? { kind: 'qr-top', svd } : null;
    case 'qr-combine': {
      const index = spec.params.index;
      const ok = typeof index === 'number' && Number.isInteger(index) && index >= 0 && inputs.length === 2 && deviceBundle(inputs[0], ['q']) && deviceBundle(inputs[1], svd ? ['q2', 'r', 'u'] : ['q2', 'r']);
      return ok ? { kind: 'qr-combine', index: index as number, svd } : null;
    }
    case 'pick': {
      const name = spec.params.name;
      return typeof name === 'string' && inputs.length === 1 && deviceBundle(inputs[0], [name]) ? { kind: 'pick', name } : null;
    }
  }
  return null;
}

function bundleOf(names: string[], ids: number[], shapes: number[][]): DeviceBundleRef {
  const parts: Record<string, DeviceArrayRef> = {};
  let bytes = 0;
  names.forEach((name, i) => {
    const b = shapes[i].reduce((x, y) => x * y, 1) * 8;
    parts[name] = { id: ids[i], dtype: 'float64', shape: shapes[i], bytes: b };
    bytes += b;
  });
  return { parts, bytes };
}

/** The device's optional linear-algebra calls, bound to it, or an error naming the one missing. */
function linalgOf(api: DeviceApi): Required<Pick<DeviceApi, 'factor' | 'rows' | 'share'>> {
  const { factor, rows, share } = api;
  if (!factor || !rows || !share) throw new Error('resident linear algebra: the device has no factor / rows / share calls');
  return { factor: factor.bind(api), rows: rows.bind(api), share: share.bind(api) };
}

function asRef(v: DeviceValue | unknown, what: string): DeviceArrayRef {
  if (typeof v !== 'object' || v === null || !isDeviceRef(v as DeviceValue)) throw new TypeError(`${what} is not a device array`);
  return v as DeviceArrayRef;
}

function asBundle(v: DeviceValue | unknown, what: string): DeviceBundleRef {
  if (typeof v !== 'object' || v === null || !isDeviceBundle(v as DeviceValue)) throw new TypeError(`${what} is not a device bundle`);
  return v as DeviceBundleRef;
}

/** Stacks float64 row blocks and factors them; the result's ids are owned by the caller. */
async function factor(api: DeviceApi, store: ResidentStore, blocks: DeviceArrayRef[], svd: boolean): Promise<DeviceBundleRef> {
  const n = blocks[0].shape[1];
  const m = blocks.reduce((s, b) => s + b.shape[0], 0);
  await store.makeRoom((m * n + 2 * n * n + n) * 8);
  const ids = await linalgOf(api).factor(blocks, m, n, svd);
  return svd ? bundleOf(['u', 's', 'vt'], ids, [[m, n], [n], [n, n]]) : bundleOf(['q', 'r'], ids, [[m, n], [n, n]]);
}

/**
 * Runs a plan on the inputs' device values (runner.ts gathered them, uploading host arrays);
 * returns the output, owned by the caller, and the temporaries it made along the way are freed.
 */
export async function runLinalg(plan: LinalgPlan, values: (DeviceValue | unknown)[], store: ResidentStore, api: DeviceApi): Promise<DeviceValue> {
  switch (plan.kind) {
    case 'qr-block':
      return factor(api, store, [asRef(values[0], 'qr-block: input 0')], false);
    case 'factor-whole':
      return factor(api, store, values.map((v, i) => asRef(v, `factor-whole: input ${i}`)), plan.svd);
    case 'pick': {
      const part = asBundle(values[0], 'pick: input 0').parts[plan.name];
      if (!part) throw new Error(`pick: no array '${plan.name}' in the input`);
      return { ...part, id: linalgOf(api).share(part.id) };
    }
    case 'qr-top': {
      const rs = values.map((v, i) => asBundle(v, `qr-top: input ${i}`).parts.r);
      const top = await factor(api, store, rs, false);
      const parts: Record<string, DeviceArrayRef> = { q2: top.parts.q, r: top.parts.r };
      let bytes = top.bytes;
      if (plan.svd) {
        try {
          const s = await factor(api, store, [top.parts.r], true);
          Object.assign(parts, s.parts);
          bytes += s.bytes;
        } catch (e) {
          store.freeTemp(top);
          throw e;
        }
      }
      return { parts, bytes };
    }
    case 'qr-combine': {
      const q1 = asBundle(values[0], 'qr-combine: input 0').parts.q;
      const top = asBundle(values[1], 'qr-combine: input 1').parts;
      const n = top.r.shape[0];
      const temps: DeviceArrayRef[] = [];
      const ref = (id: number, shape: number[]): DeviceArrayRef => ({ id, dtype: 'float64', shape, bytes: shape[0] * shape[1] * 8 });
      try {
        // Q_i = Q1_i (Q2_i U_r): the small product first, as the host handler does.
        await store.makeRoom(2 * n * n * 8 + q1.shape[0] * n * 8);
        let inner = ref(await linalgOf(api).rows(top.q2, plan.index * n, n), [n, n]);
        temps.push(inner);
        if (plan.svd) {
          inner = ref(await api.matmul(inner, top.u, null), [n, n]);
          temps.push(inner);
        }
        return ref(await api.matmul(q1, inner, null), [q1.shape[0], n]);
      } finally {
        for (const t of temps) store.freeTemp(t);
      }
    }
  }
}
