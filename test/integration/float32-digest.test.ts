/**
 * One answer for any worker set (docs/reproducibility.md): the float32 matmul of
 * bench/scaling/matmul.json (N=1024, chunks 256), cast to float64 and summed to one scalar
 * (test/fixtures/workflows/matmul-f32-total-f64.json: a float32 sum would itself round the
 * differences away, as NumPy's float32 sum returns float32), gives one digest on 1 CPU
 * worker (native BLAS), on 1 CPU + 3 virtual GPUs, and on the js reference kernels, although their
 * totals differ in the 10th digit (268423709.347 against .371: each block product sums its float32
 * terms in its own order). The total carries float32 lineage, so its digest keeps 6 digits.
 * A float64 run of the same workflow keeps 10: its total is not rounded to 6.
 */
import { describe, expect, it } from 'vitest';
import { FLOAT32_DIGEST_DIGITS } from '../../common/digest';
import type { RunResult } from '../../common/results';
import { runCli } from './cli-helpers';

const NO_GPU = { GPUFLOW_NVIDIA_SMI: '/nonexistent/nvidia-smi' };
const PARAMS = ['--param', 'N=1024', '--param', 'chunks=256'];

async function run(extra: string[]): Promise<RunResult & { digest: string }> {
  const r = await runCli(['run', 'test/fixtures/workflows/matmul-f32-total-f64.json', '--json', '--no-store', ...PARAMS, ...extra], NO_GPU, 240_000);
  expect(r.code, `${extra.join(' ')}: ${r.stderr}`).toBe(0);
  const out = JSON.parse(r.stdout) as RunResult & { digest: string };
  expect(out.status).toBe('finished');
  return out;
}

describe('float32 matmul digest', () => {
  it('is the same on 1 CPU worker, 1 CPU + 3 virtual GPUs and the js kernels', async () => {
    const one = await run(['--cpu-workers', '1', '--threads', '1']);
    const many = await run(['--cpu-workers', '1', '--virtual-gpus', '3']);
    const js = await run(['--cpu-workers', '1', '--backend', 'js']);
    const total = (r: RunResult) => {
      const v = r.results.total;
      if (v?.kind !== 'scalar') throw new Error('expected a scalar total');
      return v;
    };
    // Oracle: sum of C = sum_l colsum(A)[l] * rowsum(B)[l]; uniform [0, 1) entries give about N^3 / 4.
    expect(total(one).value / (1024 ** 3 / 4)).toBeCloseTo(1, 2);
    expect(total(one).digestDigits).toBe(FLOAT32_DIGEST_DIGITS);
    // The backends really do sum in different orders (else this test would prove nothing).
    expect(total(js).value).not.toBe(total(one).value);
    expect(Math.abs(total(js).value - total(one).value) / total(one).value).toBeLessThan(1e-6);
    expect(many.stats.workers.filter((w) => w.kind === 'virtual-gpu' && w.tasks > 0).length).toBe(3);
    expect(many.digest).toBe(one.digest);
    expect(js.digest).toBe(one.digest);
  }, 300_000);

  it('4 virtual GPUs: one row panel each (no operand moved, only the 4 partial sums), the digest of 1 CPU worker', async () => {
    const one = await run(['--cpu-workers', '1', '--threads', '1']);
    const four = await run(['--cpu-workers', '0', '--virtual-gpus', '4']);
    expect(four.digest).toBe(one.digest);
    expect(four.stats.workers.map((w) => [w.id, w.tasks > 0])).toEqual(['vgpu0', 'vgpu1', 'vgpu2', 'vgpu3'].map((id) => [id, true]));
    // A panel, a copy of B, the product and its partial sum on each GPU; the combine fetches the others' partials.
    expect(four.stats.transfers.count).toBeLessThanOrEqual(3);
    expect(four.stats.transfers.bytes).toBeLessThan(1024);
  }, 300_000);
});
