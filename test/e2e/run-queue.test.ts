/**
 * Run selected, reuse and the run queue in the browser against `gpuflow serve`: a full run, then
 * "Run selected" on its sink reuses every task (the count in the toolbar, "reused" on the node)
 * with the same answer; Run pressed during a long run queues it, a queued entry is removed, and
 * Cancel starts the next, which reuses the earlier results.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, browserMissing, openApp } from './harness';
import { setParam, deselect } from './ui-actions';

const skip = browserMissing();

const status = (page: Page) => page.getByTestId('run-status').getAttribute('data-status');
const total = async (page: Page) => Number(await page.locator('[data-testid="result-total"] .gf-scalar').getAttribute('data-value'));

describe.skipIf(skip)('run selected, reuse and the queue', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp(['--virtual-gpus', '2']);
    ({ page } = app);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('reuses unchanged results, queues runs, removes one, and cancel starts the next', async () => {
    await page.getByTestId('examples').selectOption('seed benchmark');
    await page.locator('.react-flow__node[data-id="total"]').waitFor();
    await setParam(page, 'x', 'shape', '2000, 2000');
    await setParam(page, 'x', 'chunks', '500, 500');
    await deselect(page);
    await expect.poll(() => page.getByTestId('run-selected').isDisabled()).toBe(true);
    await page.getByTestId('run').click();
    await expect.poll(() => status(page), { timeout: 60_000 }).toBe('finished');
    const answer = await total(page);

    // Run selected on the sink: every task comes from the first run.
    await page.locator('.react-flow__node[data-id="total"] .gf-node-title').click();
    await page.getByTestId('run-selected').click();
    await expect.poll(async () => Number(await page.getByTestId('run-reused').getAttribute('data-tasks')), { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(() => status(page), { timeout: 30_000 }).toBe('finished');
    await page.getByTestId('node-reused-total').waitFor();
    expect(await total(page)).toBe(answer);

    // A long run (14,400 chunks), then Run twice more while it runs: both wait in the queue.
    await setParam(page, 'x', 'shape', '120000, 120000');
    await setParam(page, 'x', 'chunks', '1000, 1000');
    await deselect(page);
    await page.getByTestId('run').click();
    await expect.poll(() => status(page), { timeout: 30_000 }).toBe('running');
    await setParam(page, 'x', 'shape', '2000, 2000');
    await setParam(page, 'x', 'chunks', '500, 500');
    await deselect(page);
    await page.getByTestId('run').click();
    await page.getByTestId('run').click();
    await expect.poll(() => page.getByTestId('queue').getAttribute('data-waiting')).toBe('2');
    await page.getByTestId('queue-remove').last().click();
    await expect.poll(() => page.getByTestId('queue').getAttribute('data-waiting')).toBe('1');
    expect(await status(page)).toBe('running');

    // Cancel stops the long run and the queued one starts: the small graph again, all reused.
    await page.getByTestId('cancel').click();
    await expect.poll(() => status(page), { timeout: 60_000 }).toBe('finished');
    expect(await total(page)).toBe(answer);
    expect(Number(await page.getByTestId('run-reused').getAttribute('data-tasks'))).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('queue').count()).toBe(0);
  }, 120_000);
});
