/**
 * The app end to end, in Debian's Chromium against `gpuflow serve --virtual-gpus 3`: build the seed
 * workflow with the mouse (palette drags, port-to-port connections, inspector fields), run it on
 * 1 CPU + 3 virtual workers and check the drawn task stream and the result against the CLI, refuse
 * a wrong connection with its reason, save / reload / open, replay with an equal digest, cancel a
 * long run, and benchmark. Screenshots of every view are
 * written by layout.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, browserMissing, cliRun, openApp, ROOT, type Server } from './harness';
import { connect, dropFromPalette, fileCommand, setParam, deselect } from './ui-actions';

const skip = browserMissing();

const laneCounts = async (page: Page): Promise<Record<string, number>> => JSON.parse((await page.getByTestId('task-stream').getAttribute('data-lane-counts')) ?? '{}');

describe.skipIf(skip)('gpuflow in the browser', () => {
  let app: App;
  let server: Server;
  let page: Page;

  beforeAll(async () => {
    app = await openApp(['--virtual-gpus', '3']);
    ({ server, page } = app);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('builds the seed workflow with the mouse and refuses a wrong connection with its reason', async () => {
    await dropFromPalette(page, 'random_normal', 20, 60);
    await dropFromPalette(page, 'scalar_op', 380, 60);
    await dropFromPalette(page, 'slice', 20, 280);
    await dropFromPalette(page, 'reduce', 380, 280);
    await connect(page, 'scalar_op', 'out', 'slice', 'x');
    await connect(page, 'slice', 'out', 'reduce', 'x');
    // reduce -> scalar_op would close a loop: refused, and the banner says why.
    await connect(page, 'reduce', 'out', 'scalar_op', 'x');
    const notice = page.getByTestId('notice');
    await expect.poll(() => notice.getAttribute('data-code')).toBe('CYCLE');
    expect(await notice.textContent()).toContain('would make a cycle');
    await connect(page, 'random_normal', 'out', 'scalar_op', 'x');
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(3);

    // An invalid value is refused in the inspector with a message naming the field.
    await setParam(page, 'random_normal', 'chunks', '500, -1');
    expect(await page.getByTestId('param-error-chunks').textContent()).toContain('chunks[1] must be greater than 0');
    await setParam(page, 'random_normal', 'shape', '2000, 2000');
    await setParam(page, 'random_normal', 'chunks', '500, 500');
    await setParam(page, 'random_normal', 'mean', '10');
    await setParam(page, 'random_normal', 'std', '1');
    await setParam(page, 'scalar_op', 'value', '1');
    await setParam(page, 'slice', 'slices', '::2, ::2');
    for (const id of ['random_normal', 'scalar_op', 'slice', 'reduce'])
      await expect.poll(() => page.getByTestId(`node-state-${id}`).textContent()).toContain('ready');
  });

  it('runs on 1 CPU + 3 virtual workers, draws 4 lanes and matches the CLI', async () => {
    await deselect(page);
    await page.getByTestId('run').click();
    await expect.poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: 60_000 }).toBe('finished');
    await expect.poll(async () => Object.values(await laneCounts(page)).filter((n) => n > 0).length).toBe(4);
    const lanes = await laneCounts(page);
    expect(Object.keys(lanes).sort()).toEqual(expect.arrayContaining(['cpu0']));
    expect(Object.values(lanes).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(16);

    const oracle = cliRun(path.join(ROOT, 'examples/seed-benchmark.json'), { N: 2000, chunks: 500 });
    expect(oracle.status).toBe('finished');
    const total = oracle.results.total as { kind: string; value?: number; data?: number[] };
    const expected = total.kind === 'scalar' ? total.value! : total.data![0];
    const shown = Number(await page.locator('[data-testid="result-reduce"] .gf-scalar').getAttribute('data-value'));
    expect(shown).toBe(expected);
    for (const id of ['random_normal', 'scalar_op', 'slice', 'reduce']) expect(await page.getByTestId(`node-state-${id}`).textContent()).toContain('done');
  });

  it('saves, reloads, opens the file again and replays with an equal digest', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), fileCommand(page, 'save')]);
    const file = path.join(path.dirname(server.db), 'saved.json');
    await download.saveAs(file);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { format: string; nodes: Array<{ id: string; params: Record<string, unknown> }>; edges: unknown[] };
    expect(doc.format).toBe('gpuflow.workflow/1');
    expect(doc.nodes.map((n) => n.id).sort()).toEqual(['random_normal', 'reduce', 'scalar_op', 'slice']);
    expect(doc.edges).toHaveLength(3);
    expect(doc.nodes.find((n) => n.id === 'random_normal')!.params.shape).toEqual([2000, 2000]);

    // A reload keeps the workflow (autosave); New empties the canvas so Open is seen to bring it back.
    await page.reload();
    await page.locator('[data-op="random_normal"]').waitFor();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(4);
    await fileCommand(page, 'new');
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(0);
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), fileCommand(page, 'open')]);
    await chooser.setFiles(file);
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(4);
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(3);

    await page.getByTestId('view-history').click();
    const firstRun = page.locator('tr[data-run="1"]');
    await firstRun.waitFor();
    await firstRun.getByRole('button', { name: 'Replay' }).click();
    await expect.poll(() => page.getByTestId('replay-check').getAttribute('data-match'), { timeout: 60_000 }).toBe('true');
    expect(await page.getByTestId('replay-check').textContent()).toContain('digest equal');
  });

  it('cancel stops a long run', async () => {
    // 14,400 chunks: minutes of work on any machine, so the cancel always lands mid-run.
    await setParam(page, 'random_normal', 'shape', '120000, 120000');
    await setParam(page, 'random_normal', 'chunks', '1000, 1000');
    await deselect(page);
    await page.getByTestId('run').click();
    await expect.poll(async () => Number(await page.getByTestId('task-stream').getAttribute('data-items')), { timeout: 60_000 }).toBeGreaterThan(8);
    await page.getByTestId('cancel').click();
    await expect.poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: 75_000 }).toBe('cancelled');
    // Stopped early: fewer tasks drew than the 14,400 chunks (plus reduction tree) the run had.
    const items = Number(await page.getByTestId('task-stream').getAttribute('data-items'));
    expect(items).toBeLessThan(14_400);
  }, 120_000);

  it('benchmarks the workflow on the four configurations', async () => {
    await setParam(page, 'random_normal', 'shape', '2000, 2000');
    await setParam(page, 'random_normal', 'chunks', '500, 500');
    await page.getByTestId('view-benchmarks').click();
    await page.getByLabel('repeat').fill('1');
    await page.getByLabel('warm-up').fill('0');
    await page.getByTestId('start-bench').click();
    const rec = page.getByTestId('bench-record');
    await rec.waitFor({ timeout: 90_000 });
    expect(await rec.getAttribute('data-digests-agree')).toBe('true');
    const text = (await rec.textContent()) ?? '';
    for (const c of ['1 CPU core', 'all CPU cores', '1 GPU', 'all GPUs']) expect(text).toContain(c);
    expect(text).toContain('virtual');
  });
});
