/**
 * Every workflow in examples/ gives the same digest on 1 CPU core and on 1 CPU + 3 virtual GPUs
 * (the CLI, `run --json`): the examples menu lists them all (main/api/examples.ts reads the
 * folder), so each must be right on any configuration the app offers. Large defaults are scaled
 * down with --param where a file has one here; a new example runs at its own defaults.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-helpers';

const SMALL: Record<string, Record<string, number>> = {
  'seed-benchmark.json': { N: 2000, chunks: 500 },
  'dataframe-groupby.json': { partitions: 6, rows_per_partition: 2000 },
  'tuning-random-search.json': { trials: 4, epochs: 2, rows: 200 },
  'tuning-mnist-mlp.json': { trials: 2, epochs: 1, rows: 300, units: 16 },
  'csv-stations.json': { blocksize: 2048 },
};
const NO_GPU = { GPUFLOW_NVIDIA_SMI: '/nonexistent/nvidia-smi' };

async function digestOf(file: string, extra: string[]): Promise<string> {
  const params = Object.entries(SMALL[file] ?? {}).flatMap(([k, v]) => ['--param', `${k}=${v}`]);
  const r = await runCli(['run', `examples/${file}`, '--json', '--no-store', ...params, ...extra], NO_GPU, 240_000);
  expect(r.code, `${file} ${extra.join(' ')}: ${r.stderr}`).toBe(0);
  const out = JSON.parse(r.stdout) as { status: string; digest: string };
  expect(out.status).toBe('finished');
  return out.digest;
}

describe('examples/', () => {
  const files = readdirSync('examples').filter((f) => f.endsWith('.json')).sort();

  it('has the CSV example and its data file', () => {
    expect(files).toContain('csv-stations.json');
    expect(readdirSync('examples/data')).toContain('stations.csv');
  });

  for (const file of files) {
    it(`${file}: the same digest on 1 CPU core and on 1 CPU + 3 virtual GPUs`, async () => {
      const [one, many] = await Promise.all([digestOf(file, ['--cpu-workers', '1', '--threads', '1']), digestOf(file, ['--cpu-workers', '1', '--virtual-gpus', '3'])]);
      expect(one).toMatch(/^[0-9a-f]{64}$/);
      expect(many).toBe(one);
    }, 300_000);
  }
});
