/**
 * When the run's final record cannot be written (the disk fills at the very end), the run's
 * answer is still delivered (issue 19: the CLI printed nothing although the run finished): the
 * service resolves `done` with the results and `storeError` set, and the results equal the
 * in-process js runner's. The failure is injected on Store.finishRun with a disk-full StoreError,
 * the error the store raises on SQLITE_FULL (main/store/errors.ts).
 */
import path from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GpuflowService } from '../../main/api/service';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { openStore, type Store } from '../../main/store';
import { StoreError } from '../../main/store/errors';
import { runLocal } from '../helpers/local-run';
import { figures, seedDoc, tempDir } from './helpers';

let engine: Engine;
let store: Store;
let svc: GpuflowService;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
  engine = new Engine(d, { launcher: forkLauncher(), virtualGpus: 1, cpuWorkers: 1, backends: ['js'], threadsPerCpuWorker: 1 });
  await engine.start();
  store = openStore(path.join(dir, 'gpuflow.db'));
  svc = new GpuflowService(engine, store, { launcher: forkLauncher(), virtualGpus: 1, backends: ['js'] });
}, 60_000);

afterAll(async () => {
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the store fails at the end of a run', () => {
  it('still delivers the results, with storeError saying why', async () => {
    const params = { N: 200, chunks: 100, seed: 0, dtype: 'float64' };
    const doc = { ...seedDoc(), params };
    const full = new StoreError('disk-full', path.join(dir, 'gpuflow.db'), `${path.join(dir, 'gpuflow.db')} is full: the last change was not saved`);
    vi.spyOn(store, 'finishRun').mockImplementation(() => {
      throw full;
    });
    const started = await svc.runAsync(doc);
    const r = await started.done;
    const expected = await runLocal(doc);
    figures('store-fails-at-end', { status: r.status, storeError: r.storeError, results: Object.keys(r.results) });
    expect(r.status).toBe('finished');
    expect(r.storeError).toBe(full.message);
    expect(r.results).toEqual(expected);
  }, 60_000);
});
