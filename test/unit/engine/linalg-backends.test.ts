/**
 * Linear-algebra nodes on a native backend, against the js kernels as the oracle.
 *
 * The qr and svd nodes' TSQR with a native backend factoring the float64 row blocks (LAPACK or
 * the addon's C++; explicit Q multiplied through its matmul) gives the answer of the js kernels,
 * the oracle: same R, Q, U, S and V^T (both make diag(R) >= 0 and apply the same sign rule to the
 * SVD's (u_k, v_k), so no column changes sign), and the tasks say they ran on native-cpu. float32
 * stays in js. svd_randomized's products with A's blocks (sketch, power iterations, U) run on the
 * backend's matmul and give the js factors to rounding.
 */
import { describe, expect, it } from 'vitest';
import type { ChunkValue, NDArray } from '../../../common/arrays';
import type { WorkerConfig } from '../../../common/messages';
import { loadNative } from '../../../native/index';
import { executeSpec } from '../../../worker/execute';
import type { ArrayBackend } from '../../../worker/kernels/backend';
import { createJsBackend } from '../../../worker/kernels/js';
import { localTasks } from '../../helpers/local-tasks';
import { nativeCpu } from '../../helpers/backend-sets';

const native = loadNative();
const skip = 'unavailable' in native;

const doc = (dtype: string) => ({
  format: 'gpuflow.workflow/1',
  nodes: [
    // 5 row blocks, the last a short one (100 rows), all taller than wide.
    { id: 'a', op: 'random_normal', params: { shape: [900, 30], chunks: [200, 30], seed: 11, dtype } },
    { id: 'f', op: 'qr', params: {} },
    { id: 'd', op: 'svd', params: {} },
  ],
  edges: [
    { source: 'a', sourcePort: 'out', target: 'f', targetPort: 'x' },
    { source: 'a', sourcePort: 'out', target: 'd', targetPort: 'x' },
  ],
});

const arrayOf = (v: ChunkValue): NDArray => {
  if (v.kind !== 'array') throw new Error(`expected an array, got a ${v.kind}`);
  return v.array;
};

const config: WorkerConfig = { id: 'l', kind: 'cpu', label: 'l', threads: 2, concurrency: 1, memoryLimit: 2 ** 32, peerToken: 'x'.repeat(16), backends: ['native-cpu', 'js'], heartbeatMs: 1000 };

/** native-cpu, but its SVD hands back (u_k, v_k) with the signs of even k flipped, as cuSOLVER may. */
function signFlipping(): ArrayBackend {
  const b = nativeCpu();
  return {
    ...b,
    async svd(a) {
      const r = await b.svd!(a);
      const [m, p] = r.u.shape;
      const n = r.vt.shape[1];
      for (let k = 0; k < p; k += 2) {
        for (let i = 0; i < m; i++) r.u.data[i * p + k] = -r.u.data[i * p + k];
        for (let j = 0; j < n; j++) r.vt.data[k * n + j] = -r.vt.data[k * n + j];
      }
      return r;
    },
  };
}

/**
 * Runs `d` task by task on `backends`: the named whole-array outputs, flattened, and which backend
 * each task whose op passes `traced` reports (re-run on the same inputs), as sorted "op:backend".
 */
async function runOn(d: unknown, names: string[], traced: (op: string) => boolean, backends: ArrayBackend[]) {
  const run = await localTasks(d, {}, { wholeArrayLimit: Infinity }, backends);
  const out: Record<string, number[]> = {};
  for (const name of names) {
    const o = run.compiled.outputs[name];
    if (o.kind !== 'array') throw new Error(`${name} should be a whole array output`);
    const blocks = await Promise.all(o.keys.map(async (k) => arrayOf(await run.value(k))));
    out[name] = blocks.flatMap((b) => Array.from(b.data as Float64Array));
  }
  const ctx = { config, backends, report: () => undefined };
  const ran = new Set<string>();
  for (const t of run.compiled.tasks.values()) {
    if (t.spec.kind !== 'array-op' || !traced(t.spec.op)) continue;
    ran.add(`${t.spec.op}:${(await executeSpec(t.spec, await Promise.all(t.deps.map(run.value)), ctx)).backend}`);
  }
  return { out, ran: [...ran].sort() };
}

const worstDiff = (a: number[], b: number[]) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

function outputs(dtype: string, withNative: boolean | 'flipping') {
  const backends = withNative === 'flipping' ? [signFlipping(), createJsBackend()] : withNative ? [nativeCpu(), createJsBackend()] : [createJsBackend()];
  return runOn(doc(dtype), ['f.q', 'f.r', 'd.u', 'd.s', 'd.vt'], (op) => op.startsWith('qr-'), backends);
}

describe.skipIf(skip)('TSQR on a native backend (qr and svd nodes)', () => {
  it('float64: the same Q, R, U, S, V^T as the js kernels, the blocks run on native-cpu', async () => {
    const js = await outputs('float64', false);
    const nat = await outputs('float64', true);
    expect(js.ran).toEqual(['qr-block:js', 'qr-combine:js', 'qr-top:js']);
    expect(nat.ran).toEqual(['qr-block:native-cpu', 'qr-combine:native-cpu', 'qr-top:native-cpu']);
    for (const name of Object.keys(js.out)) {
      const a = js.out[name];
      const b = nat.out[name];
      expect(b.length, name).toBe(a.length);
      const worst = worstDiff(a, b);
      // Entries are O(1) (R and S up to ~35): different rounding, not different answers.
      expect(worst, name).toBeLessThan(1e-11);
    }
  });

  it('a backend SVD that returns other signs (as cuSOLVER may) still gives the js U and V^T', async () => {
    const js = await outputs('float64', false);
    const flipped = await outputs('float64', 'flipping');
    for (const name of ['d.u', 'd.vt']) {
      expect(worstDiff(js.out[name], flipped.out[name]), name).toBeLessThan(1e-11);
    }
  });

  it('float32: the blocks stay in js', async () => {
    const nat = await outputs('float32', true);
    expect(nat.ran.filter((r) => !r.startsWith('qr-combine'))).toEqual(['qr-block:js', 'qr-top:js']);
  });
});

describe.skipIf(skip)('svd_randomized on a native backend', () => {
  const rdoc = {
    format: 'gpuflow.workflow/1',
    nodes: [
      { id: 'a', op: 'random_normal', params: { shape: [600, 80], chunks: [150, 80], seed: 5 } },
      { id: 'r', op: 'svd_randomized', params: { rank: 5, oversample: 5, power_iters: 1, seed: 3 } },
    ],
    edges: [{ source: 'a', sourcePort: 'out', target: 'r', targetPort: 'x' }],
  };

  const run = (backends: ArrayBackend[]) => runOn(rdoc, ['r.u', 'r.s', 'r.vt'], (op) => ['rs-sketch', 'rs-mm', 'rs-u'].includes(op), backends);

  it('gives the js U, S and V^T, the products on native-cpu', async () => {
    const js = await run([createJsBackend()]);
    const nat = await run([nativeCpu(), createJsBackend()]);
    expect(js.ran).toEqual(['rs-mm:js', 'rs-sketch:js', 'rs-u:js']);
    expect(nat.ran).toEqual(['rs-mm:native-cpu', 'rs-sketch:native-cpu', 'rs-u:native-cpu']);
    for (const name of Object.keys(js.out)) {
      expect(worstDiff(js.out[name], nat.out[name]), name).toBeLessThan(1e-10);
    }
  });
});
