/**
 * `gpuflow export-dask`'s script (main/cli/export-dask.ts): every string from outside reaches
 * Python as a string literal and nothing else (a file name built to close the docstring runs
 * nothing), and a workflow with an op gpuflow_dask cannot run is refused at export, naming the
 * node and op. The script's module level runs under Debian's Python without a cluster (runpy
 * with a run name other than __main__, so main() does not start).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../main/cli/args';
import { daskScript } from '../../../main/cli/export-dask';
import { DASK_PYTHON, skipDask } from '../../helpers/dask-cluster';

const root = path.resolve(__dirname, '../../..');
const example = (f: string) => JSON.parse(readFileSync(path.join(root, 'examples', f), 'utf8')) as unknown;

describe('export-dask script', () => {
  it.skipIf(skipDask)('embeds a hostile file name and workflow name as plain strings: nothing runs', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-export-esc-'));
    const source = path.join(dir, 'q""" if __import__("os").system("touch pwned") else """x.json');
    copyFileSync(path.join(root, 'examples/seed-benchmark.json'), source);
    const doc = { ...(example('seed-benchmark.json') as Record<string, unknown>), name: "n'''\"\"\"\nimport os; os.system('touch pwned2')\n#" };
    const file = path.join(dir, 'script.py');
    writeFileSync(file, daskScript(doc, { N: 400, chunks: 100 }, source));
    const probe = 'import json, runpy, sys; g = runpy.run_path(sys.argv[1], run_name="probe"); print(json.dumps([g["SOURCE"], g["WORKFLOW"], g["PARAMS"], g["__doc__"] is not None]))';
    const py = spawnSync(DASK_PYTHON, ['-c', probe, file], { cwd: dir, encoding: 'utf8', env: { ...process.env, PYTHONPATH: path.join(root, 'python') } });
    expect(py.status, py.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'pwned'))).toBe(false);
    expect(existsSync(path.join(dir, 'pwned2'))).toBe(false);
    expect(JSON.parse(py.stdout)).toEqual([source, doc.name, { N: 400, chunks: 100 }, true]);
  });

  it('refuses a tuning search at export, naming the node and op', () => {
    const e = (() => {
      try {
        daskScript(example('tuning-random-search.json'), { trials: 2, epochs: 1, rows: 50 }, 'tuning.json');
      } catch (err) {
        return err;
      }
      return null;
    })();
    expect(e).toBeInstanceOf(UsageError);
    expect((e as Error).message).toMatch(/^export-dask tuning\.json: node 'search' \([^)]+\): the tuning trial '[^']+' is not supported on Dask/);
  });

  it('exports read_csv, and refuses a filter the workers cannot evaluate, naming the node and op', () => {
    expect(daskScript(example('csv-stations.json'), {}, 'csv.json')).toContain('read-csv');
    const doc = example('csv-stations.json') as { nodes: { id: string; params: Record<string, unknown> }[] };
    doc.nodes[1]!.params.expr = "contains(station, 'os')";
    expect(() => daskScript(doc, {}, 'csv.json')).toThrow(/node 'rainy' \(filter\): the filter 'contains\(station, 'os'\)' .* is not supported on Dask/);
  });
});
