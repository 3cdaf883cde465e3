/**
 * GPU checks of the cuda backend's linear algebra against the js reference
 * (worker/kernels/js/linalg): matmul (both dtypes, with and without c0, odd shapes), qr, and svd
 * by every method GPUFLOW_CUDA_SVD can pick (native/src/cuda/runtime.cu), on tall, wide and
 * square matrices, on each side of the 1.6 aspect ratio where the QR-first methods switch the
 * QR on. An SVD is checked by its defining identities (U S V^T = A, U^T U = I, V^T V = I,
 * singular values descending) and by its singular values against js, on random and on
 * rank-deficient matrices; vectors are only unique up to sign, so they are not compared entry by
 * entry. Bundled by bench/native/linalg-device.sh.
 *
 * With the addon, the resident path too (worker/resident/linalg.ts: TSQR's tasks and the one-task
 * qr / svd on device blocks, signs fixed on the device) against the host handlers with the js
 * backend, entry by entry (the sign rule makes the factors unique for these full-rank inputs),
 * for every SVD method; that nothing comes to the host between tasks; that no block is left
 * behind; and a rank-deficient one-task svd by its identities.
 */
import type { NDArray } from '../../common/arrays';
import type { NativeAddon } from '../../native/index';
import type { ArrayBackend } from '../../worker/kernels/backend';
import { createJsBackend } from '../../worker/kernels/js';
import { addonDeviceApi } from '../../worker/resident/device-api';
import { maxAbsDiff, runBothWays, tsqrSteps, wholeSteps } from '../unit/resident/linalg-chain';
import { matmul as jsMatmul, qr as jsQr, svd as jsSvd } from '../../worker/kernels/js/linalg';
import { lcgMatrix } from '../unit/native/programs';
import { checkList, maxRelDiff, type CheckResult } from './cuda-checks';

export const SVD_METHODS = ['gesvd', 'gesvdj', 'gesvdp', 'qr-gesvd', 'qr-gesvdj', 'qr-gesvdp'] as const;

function as64(a: NDArray): NDArray {
  return { dtype: 'float64', shape: a.shape, data: Float64Array.from(a.data as ArrayLike<number>) };
}

// max |X^T X - I| over the columns of X (rows x cols, row-major).
function orthoError(x: NDArray): number {
  const [rows, cols] = x.shape;
  const t = { dtype: 'float64' as const, shape: [cols, rows], data: new Float64Array(rows * cols) };
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) t.data[j * rows + i] = x.data[i * cols + j] as number;
  const g = jsMatmul(t, as64(x)).data;
  let e = 0;
  for (let i = 0; i < cols; i++) for (let j = 0; j < cols; j++) e = Math.max(e, Math.abs((g[i * cols + j] as number) - (i === j ? 1 : 0)));
  return e;
}

export async function runLinalgChecks(cuda: ArrayBackend, addon?: NativeAddon): Promise<CheckResult[]> {
  const { results, check } = checkList();
  if (addon) await residentChecks(addon, cuda, check);
  for (const dtype of ['float64', 'float32'] as const) {
    const tol = dtype === 'float32' ? 2e-5 : 1e-12;
    for (const [m, k, n, acc] of [[300, 200, 250, true], [1, 1, 1, false], [257, 129, 65, false], [64, 1000, 3, true]] as const) {
      await check(`matmul ${dtype} ${m}x${k} @ ${k}x${n}${acc ? ' + c0' : ''}`, async () => {
        const a = lcgMatrix(m, k, 1, dtype);
        const b = lcgMatrix(k, n, 2, dtype);
        const c0 = acc ? lcgMatrix(m, n, 3, dtype) : undefined;
        const got = await cuda.matmul!(a, b, c0);
        const want = jsMatmul(as64(a), as64(b), c0 && as64(c0)).data as Float64Array;
        const d = maxRelDiff(got.data as Float64Array, want);
        return d <= tol * 5 ? null : `max rel diff ${d}`;
      });
    }
    await check(`qr ${dtype} 600x50 vs js`, async () => {
      const a = lcgMatrix(600, 50, 4, dtype);
      const { q, r } = await cuda.qr!(a);
      const want = jsQr(as64(a));
      const dr = maxRelDiff(r.data as Float64Array, want.r.data as Float64Array);
      const dq = maxRelDiff(q.data as Float64Array, want.q.data as Float64Array);
      return dr <= tol * 100 && dq <= tol * 1000 ? null : `R differs from js by ${dr}, Q by ${dq}`;
    });
    // Rank-deficient inputs too: U must still come out orthonormal (gesvdp alone may not give
    // that, runtime.cu then redoes them by Jacobi), as js completes U for zero singular values.
    const lowRank = (m: number, n: number, r: number, seed: number): NDArray => {
      const p = jsMatmul(as64(lcgMatrix(m, r, seed, dtype)), as64(lcgMatrix(r, n, seed + 1, dtype)));
      return { dtype, shape: [m, n], data: dtype === 'float32' ? Float32Array.from(p.data as Float64Array) : p.data };
    };
    const inputs: [string, NDArray][] = [[400, 30], [30, 70], [90, 60], [60, 60], [2000, 120]].map(([m, n]) => [`${m}x${n}`, lcgMatrix(m, n, 5 + m, dtype)]);
    inputs.push(['400x30 rank 10', lowRank(400, 30, 10, 7)], ['30x70 rank 5', lowRank(30, 70, 5, 9)], ['50x20 zeros', { dtype, shape: [50, 20], data: dtype === 'float32' ? new Float32Array(1000) : new Float64Array(1000) }]);
    const prior = process.env.GPUFLOW_CUDA_SVD;
    for (const method of SVD_METHODS)
      for (const [label, a] of inputs)
        await check(`svd ${method} ${dtype} ${label}`, async () => {
          process.env.GPUFLOW_CUDA_SVD = method;
          const [m, n] = a.shape;
          const { u, s, vt } = await cuda.svd!(a).finally(() => {
            if (prior === undefined) delete process.env.GPUFLOW_CUDA_SVD;
            else process.env.GPUFLOW_CUDA_SVD = prior;
          });
          const p = Math.min(m, n);
          const us = new Float64Array(m * p);
          for (let i = 0; i < m; i++) for (let j = 0; j < p; j++) us[i * p + j] = (u.data[i * p + j] as number) * (s.data[j] as number);
          const rec = maxRelDiff(jsMatmul({ dtype: 'float64', shape: [m, p], data: us }, as64(vt)).data as Float64Array, a.data as Float64Array);
          if (rec > tol * 10) return `U S Vt differs from A by ${rec}`;
          for (let j = 1; j < p; j++) if ((s.data[j] as number) > (s.data[j - 1] as number)) return `s not descending at ${j}`;
          const eu = orthoError(u);
          const vtT = { dtype: 'float64' as const, shape: [n, p], data: new Float64Array(n * p) };
          for (let i = 0; i < p; i++) for (let j = 0; j < n; j++) vtT.data[j * p + i] = vt.data[i * n + j] as number;
          const ev = orthoError(vtT);
          if (eu > tol * 100 || ev > tol * 100) return `U^T U - I up to ${eu}, V^T V - I up to ${ev}`;
          const ds = maxRelDiff(s.data as Float64Array, jsSvd(as64(a)).s.data as Float64Array);
          return ds <= tol * 10 ? null : `singular values differ from js by ${ds}`;
        });
  }
  return results;
}

type Check = ReturnType<typeof checkList>['check'];

async function residentChecks(addon: NativeAddon, cuda: ArrayBackend, check: Check): Promise<void> {
  const api = addonDeviceApi(addon);
  const js = createJsBackend();
  const blocksOf = (rows: number[], n: number, seed: number): NDArray[] => rows.map((r, i) => lcgMatrix(r, n, seed + i, 'float64'));
  const prior = process.env.GPUFLOW_CUDA_SVD;
  const cases: [string, ReturnType<typeof tsqrSteps>, NDArray[]][] = [
    ['TSQR svd 3 blocks of 850 x 40', tsqrSteps(3, true), blocksOf([300, 300, 250], 40, 21)],
    ['TSQR qr 3 blocks of 850 x 40', tsqrSteps(3, false), blocksOf([300, 300, 250], 40, 21)],
    ['one-task svd 1200 x 60 in 3 blocks', wholeSteps(3, true), blocksOf([500, 500, 200], 60, 31)],
    ['one-task svd 1200 x 60 in 1 block', wholeSteps(1, true), blocksOf([1200], 60, 41)],
    ['one-task qr 1200 x 60 in 3 blocks', wholeSteps(3, false), blocksOf([500, 500, 200], 60, 31)],
    ['one-task svd 90 x 60 (under the QR-first ratio)', wholeSteps(2, true), blocksOf([45, 45], 60, 51)],
  ];
  for (const method of ['default', ...SVD_METHODS])
    for (const [label, which, blocks] of cases) {
      if (method !== 'default' && !label.includes('svd')) continue;
      await check(`resident ${label} (${method}) vs js`, async () => {
        if (method === 'default') delete process.env.GPUFLOW_CUDA_SVD;
        else process.env.GPUFLOW_CUDA_SVD = method;
        const live = addon.cudaResidentStats().blocks;
        try {
          const r = await runBothWays(api, [cuda, js], [js], blocks, which);
          const host = Object.entries(r.plans).filter(([, p]) => p === null);
          if (host.length) return `ran on the host: ${host.map(([k]) => k).join(', ')}`;
          if (r.before.downloads !== 0) return `${r.before.downloads} downloads between tasks`;
          const worst = which.outputs.map((k) => [k, maxAbsDiff(r.resident[k], r.host[k])] as const).sort((a, b) => b[1] - a[1])[0];
          for (const k of [...which.steps.map((s) => s.key), ...blocks.map((_, i) => `a${i}`)]) r.store.release(k);
          const left = addon.cudaResidentStats().blocks - live;
          if (left !== 0) return `${left} device blocks left after releasing everything`;
          return worst[1] <= 1e-9 ? null : `${worst[0]} differs from js by ${worst[1]}`;
        } finally {
          if (prior === undefined) delete process.env.GPUFLOW_CUDA_SVD;
          else process.env.GPUFLOW_CUDA_SVD = prior;
        }
      });
    }
  // Rank-deficient: the default method's rank test sends it to Jacobi; checked by its identities.
  await check('resident one-task svd 400 x 30 rank 10: U S Vt = A, U orthonormal', async () => {
    const a = jsMatmul(lcgMatrix(400, 10, 61, 'float64'), lcgMatrix(10, 30, 62, 'float64'));
    const r = await runBothWays(api, [cuda, js], [js], [a], wholeSteps(1, true));
    const [u, s, vt] = [r.resident['pick-u'], r.resident['pick-s'], r.resident['pick-vt']];
    const us = new Float64Array(400 * 30);
    for (let i = 0; i < 400; i++) for (let j = 0; j < 30; j++) us[i * 30 + j] = (u.data[i * 30 + j] as number) * (s.data[j] as number);
    const rec = maxRelDiff(jsMatmul({ dtype: 'float64', shape: [400, 30], data: us }, vt).data as Float64Array, a.data as Float64Array);
    const eu = orthoError(u);
    for (const k of ['f', 'pick-u', 'pick-s', 'pick-vt', 'a0']) r.store.release(k);
    return rec <= 1e-11 && eu <= 1e-10 ? null : `U S Vt differs from A by ${rec}, U^T U - I up to ${eu}`;
  });
}
