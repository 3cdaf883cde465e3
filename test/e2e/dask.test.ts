/**
 * The app against a Dask cluster: `serve` in Chromium, the toolbar's cluster selector tests and
 * selects a shared LocalCluster (2 workers), the seed example runs there (small shape, set in the
 * inspector), and the task stream draws lanes named after the Dask workers (dask-0, dask-1).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASK_PYTHON, skipDask, startLocalCluster, type SharedCluster } from '../helpers/dask-cluster';
import { type App, browserMissing, openApp } from './harness';
import { setParam } from './ui-actions';

const skip = browserMissing() || skipDask;
const laneCounts = async (page: Page): Promise<Record<string, number>> => JSON.parse((await page.getByTestId('task-stream').getAttribute('data-lane-counts')) ?? '{}');

describe.skipIf(skip)('the app on a Dask cluster', () => {
  let app: App;
  let cluster: SharedCluster;
  beforeAll(async () => {
    process.env.GPUFLOW_PYTHON = DASK_PYTHON;
    [cluster, app] = await Promise.all([startLocalCluster(2), openApp([])]);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await cluster?.close();
  });

  it('tests and selects the cluster, runs the seed example there, lanes named after the Dask workers', async () => {
    const { page } = app;
    await page.getByTestId('cluster-target').click(); // opens the popover
    await page.getByTestId('cluster-address').fill(cluster.address);
    await page.getByTestId('cluster-test').click();
    await expect.poll(() => page.getByTestId('cluster-workers').locator('li').count(), { timeout: 60_000 }).toBe(2);
    expect(await page.getByTestId('cluster-summary').textContent()).toBe('2 Dask workers');
    expect(await page.getByTestId('cluster-workers').textContent()).toContain('dask-0');
    await page.getByTestId('cluster-use').click();
    await expect.poll(() => page.getByTestId('cluster-target').textContent(), { timeout: 60_000 }).toBe(`Dask: ${cluster.address}`);

    await page.getByTestId('examples').selectOption({ label: 'seed benchmark' });
    await setParam(page, 'x', 'shape', '400, 400');
    await setParam(page, 'x', 'chunks', '100, 100');
    await page.getByTestId('run').click();
    await expect.poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: 120_000 }).toBe('finished');
    await expect.poll(async () => Object.keys(await laneCounts(page)).filter((k) => k.startsWith('dask-')).sort()).toEqual(['dask-0', 'dask-1']);
  }, 240_000);
});
