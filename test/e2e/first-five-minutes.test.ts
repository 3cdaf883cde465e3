/**
 * A new user's first five minutes (issue 27), in Debian's Chromium against `gpuflow serve
 * --virtual-gpus 3`: build the seed workflow from an empty canvas, leave a stray node (the
 * problems list names it, Run is disabled and says why), fix it, a Run the server refuses (a
 * path outside the allowed folders: named with its node and field), run, reload mid-run (the
 * workflow and its undo history are back, the run re-attaches and finishes in view), cancel a run (no erred colour, no
 * digest), delete a node after a run (its result is marked stale), compare a run with its replay
 * (decoded values side by side, no base64, the two task streams one above the other), benchmark
 * the workflow (configuration, progress and its current run's task stream while it runs, also in
 * a page opened mid-benchmark, then Cancel), run the tuning example (its trials drawn running,
 * each labelled with its epoch, before the search ends). Each step checks what a person sees: text, states, and colours read from the canvas's pixels.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, browserMissing, openApp } from './harness';
import { connect, deselect, dropFromPalette, setParam } from './ui-actions';

const skip = browserMissing();
const SEED = ['random_normal', 'scalar_op', 'slice', 'reduce'];

const status = (page: Page) => page.getByTestId('run-status').getAttribute('data-status');
const items = async (page: Page) => Number(await page.getByTestId('task-stream').getAttribute('data-items'));
const pill = (page: Page, id: string) => page.getByTestId(`node-state-${id}`).textContent();

/** The progress bars' counts, summed over nodes: what the canvas says it drew (data-bars). */
async function bars(page: Page): Promise<{ erred: number; cancelled: number; done: number; total: number }> {
  const drawn = JSON.parse((await page.getByTestId('progress-bars').getAttribute('data-bars')) ?? '[]') as Array<{ seg: Record<'erred' | 'cancelled' | 'done' | 'total', number> }>;
  return drawn.reduce((a, { seg }) => ({ erred: a.erred + seg.erred, cancelled: a.cancelled + seg.cancelled, done: a.done + seg.done, total: a.total + seg.total }), { erred: 0, cancelled: 0, done: 0, total: 0 });
}

/**
 * The colours on the progress canvas's pixels: the middle pixel of each bar's cancelled segment,
 * how many track pixels of any bar are in the erred colour, and the two CSS tokens as the canvas
 * paints them (a 1×1 canvas filled with each: the oracle, independent of the panel's code).
 */
function barPixels(page: Page) {
  return page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('[data-testid="progress-bars"]')!;
    const scale = canvas.width / canvas.getBoundingClientRect().width;
    const ctx = canvas.getContext('2d')!;
    const at = (x: number, y: number) => [...ctx.getImageData(Math.floor(x * scale), Math.floor(y * scale), 1, 1).data].join(',');
    const token = (name: string) => {
      const probe = document.createElement('canvas').getContext('2d')!;
      probe.fillStyle = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
      probe.fillRect(0, 0, 1, 1);
      return [...probe.getImageData(0, 0, 1, 1).data].join(',');
    };
    const erred = token('--seg-erred');
    const drawn = JSON.parse(canvas.dataset.bars ?? '[]') as Array<{ y: number; w: number; at: { cancelled?: [number, number] } }>;
    const cancelledMid = drawn.filter((b) => b.at.cancelled).map((b) => at(b.at.cancelled![0] + b.at.cancelled![1] / 2, b.y + 5));
    let erredPixels = 0;
    for (const b of drawn) for (let x = 0.5; x < b.w; x += 1) if (at(x, b.y + 5) === erred) erredPixels++;
    return { cancelledMid, erredPixels, cancelled: token('--seg-cancelled'), erred };
  });
}

async function setSize(page: Page, shape: string, chunks: string) {
  await setParam(page, 'random_normal', 'shape', shape);
  await setParam(page, 'random_normal', 'chunks', chunks);
  await deselect(page);
}

describe.skipIf(skip)('the first five minutes', () => {
  let app: App;
  let page: Page;

  beforeAll(async () => {
    app = await openApp(['--virtual-gpus', '3']);
    ({ page } = app);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('builds the seed workflow from an empty canvas; a stray node is named and blocks Run until removed', async () => {
    expect(await page.locator('.react-flow__node').count()).toBe(0);
    await dropFromPalette(page, 'random_normal', 20, 60);
    await dropFromPalette(page, 'scalar_op', 380, 60);
    await dropFromPalette(page, 'slice', 20, 280);
    await dropFromPalette(page, 'reduce', 380, 280);
    // Before anything is connected the list already says what is missing, and Run says why it waits.
    await expect.poll(() => page.getByTestId('problems').textContent()).toContain('required array input is not connected');
    expect(await page.getByTestId('run').isDisabled()).toBe(true);
    await connect(page, 'random_normal', 'out', 'scalar_op', 'x');
    await connect(page, 'scalar_op', 'out', 'slice', 'x');
    await connect(page, 'slice', 'out', 'reduce', 'x');
    await setSize(page, '2000, 2000', '500, 500');
    await setParam(page, 'random_normal', 'mean', '10');
    await setParam(page, 'random_normal', 'std', '1');
    await setParam(page, 'scalar_op', 'value', '1');
    await setParam(page, 'slice', 'slices', '::2, ::2');
    await deselect(page);
    await expect.poll(() => page.getByTestId('problems').allTextContents()).toEqual([]);
    for (const id of SEED) await expect.poll(() => pill(page, id)).toContain('ready');

    // A stray node: the list names it and its input, the node is outlined, Run is disabled with the reason.
    await page.locator('[data-op="scalar_op"]').dragTo(page.getByTestId('graph-canvas'), { targetPosition: { x: 700, y: 160 } });
    const stray = page.locator('.react-flow__node[data-id="scalar_op_2"]');
    await stray.waitFor();
    const problem = page.locator('[data-testid="problem"][data-node="scalar_op_2"]');
    await expect.poll(() => problem.allTextContents()).toEqual(['scalar_op_2value is required', 'scalar_op_2inputs.x: required array input is not connected']);
    expect(await page.getByTestId('problems').textContent()).toMatch(/^2 problems/);
    expect(await stray.locator('.gf-node').getAttribute('class')).toContain('has-problem');
    const outline = await stray.locator('.gf-node').evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).toBe('solid');
    expect(await page.getByTestId('run').isDisabled()).toBe(true);
    expect(await page.getByTestId('run').getAttribute('title')).toBe("Cannot run: node 'scalar_op_2': value is required (and 1 more problem: see the problems list)");
    // Clicking a problem selects the node it names and focuses the field.
    await deselect(page);
    await problem.first().click();
    await expect.poll(() => stray.getAttribute('class')).toContain('selected');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('param-scalar_op_2-value');
    await stray.locator('.gf-node-title').click();

    // Fixed: the stray node deleted, the list is gone and Run is enabled again.
    await page.keyboard.press('Delete');
    await expect.poll(() => stray.count()).toBe(0);
    await expect.poll(() => page.getByTestId('problems').allTextContents()).toEqual([]);
    expect(await page.getByTestId('run').isDisabled()).toBe(false);
    // The click centred the stray node; the whole graph back in view for the steps that follow.
    await page.locator('.react-flow__controls-fitview').click();
  }, 120_000);

  it('a Run the server refuses (a file outside the allowed folders: the browser cannot know them) names the node and field', async () => {
    await dropFromPalette(page, 'load_npy', 700, 160);
    const npy = page.locator('.react-flow__node[data-id="load_npy"]');
    await setParam(page, 'load_npy', 'path', '/etc/hostname');
    await setParam(page, 'load_npy', 'chunks', '10');
    await deselect(page);
    // The renderer's own rules accept it (types and graph are fine), so Run is enabled.
    await expect.poll(() => page.getByTestId('run').isDisabled()).toBe(false);
    await page.getByTestId('run').click();
    await expect.poll(() => status(page), { timeout: 30_000 }).toBe('refused');
    // Not a bare "failed": the status says why, and the list names the node and its field.
    expect(await page.getByTestId('run-status').textContent()).toMatch(/not run: 1 problem \(listed below\)/);
    const refusal = page.locator('[data-testid="problem"][data-node="load_npy"][data-field="path"]');
    await expect.poll(() => refusal.allTextContents()).toEqual([expect.stringMatching(/^load_npy.*\/etc\/hostname is outside the allowed folders/)]);
    // A click on it focuses the field, whose own message says the same.
    await refusal.click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('param-load_npy-path');
    expect(await page.getByTestId('param-error-path').textContent()).toContain('is outside the allowed folders');
    await npy.locator('.gf-node-title').click();
    await page.keyboard.press('Delete');
    await expect.poll(() => npy.count()).toBe(0);
    await expect.poll(() => page.getByTestId('problems').count()).toBe(0);
    await page.locator('.react-flow__controls-fitview').click();
  }, 120_000);

  it('reloaded mid-run, the page has the workflow back and re-attaches to the run until it finishes', async () => {
    // 1600 chunks: long enough that the reload lands while the run is going on.
    await setSize(page, '40000, 40000', '1000, 1000');
    await page.getByTestId('run').click();
    await expect.poll(() => items(page), { timeout: 60_000 }).toBeGreaterThan(8);
    expect(await status(page)).toBe('running');
    const before = await items(page);

    await page.reload();
    await page.locator('[data-op="random_normal"]').waitFor();
    // The workflow is back as it was edited, with its params.
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(4);
    await page.locator('.react-flow__node[data-id="random_normal"] .gf-node-title').click();
    expect(await page.locator('#param-random_normal-shape').inputValue()).toBe('40000, 40000');
    await deselect(page);
    // The run is on show again: its status, its task stream from its first task, and Cancel.
    await expect.poll(() => status(page), { timeout: 30_000 }).toBe('running');
    await expect.poll(() => items(page), { timeout: 30_000 }).toBeGreaterThanOrEqual(before);
    expect(await page.getByTestId('cancel').isDisabled()).toBe(false);
    await expect.poll(() => status(page), { timeout: 400_000, interval: 1000 }).toBe('finished');
    for (const id of SEED) await expect.poll(() => pill(page, id)).toContain('done');
    // The bars follow the counts' clock (a quarter second at most behind the status): every task done.
    await expect.poll(async () => {
      const b = await bars(page);
      return b.total > 0 && b.done === b.total;
    }, { timeout: 15_000 }).toBe(true);
    expect(await page.getByTestId('results').getAttribute('data-digest')).toMatch(/^[0-9a-f]{16,}$/);

    // The undo history came back with the workflow: undo steps back through the edits made
    // before the reload (chunks, then shape), redo puts them back.
    const field = async (name: string) => {
      await page.locator('.react-flow__node[data-id="random_normal"] .gf-node-title').click();
      const v = await page.locator(`#param-random_normal-${name}`).inputValue();
      await deselect(page);
      return v;
    };
    expect(await page.getByRole('button', { name: 'Undo' }).isDisabled(), 'Undo offered after the reload').toBe(false);
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => field('chunks')).toBe('500, 500');
    expect(await field('shape')).toBe('40000, 40000');
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => field('shape')).toBe('2000, 2000');
    await page.getByRole('button', { name: 'Redo' }).click();
    await page.getByRole('button', { name: 'Redo' }).click();
    await expect.poll(() => field('shape')).toBe('40000, 40000');
    expect(await field('chunks')).toBe('1000, 1000');
  }, 500_000);

  it('a cancelled run paints its stopped tasks as cancelled, not erred, and shows no digest', async () => {
    // 14,400 chunks: the cancel always lands mid-run.
    await setSize(page, '120000, 120000', '1000, 1000');
    await page.getByTestId('run').click();
    // 'running' first: until the page redraws after the click, the task stream's count is the
    // last run's (a cancel sent then lands before this run has anything to paint).
    await expect.poll(() => status(page), { timeout: 60_000 }).toBe('running');
    await expect.poll(() => items(page), { timeout: 60_000 }).toBeGreaterThan(8);
    await page.getByTestId('cancel').click();
    await expect.poll(() => status(page), { timeout: 75_000 }).toBe('cancelled');
    // The bars redraw on the next frame after the status: on a busy 2-core runner that can take seconds.
    await expect.poll(async () => (await bars(page)).cancelled, { timeout: 15_000 }).toBeGreaterThan(0);
    expect((await bars(page)).erred).toBe(0);
    // On the canvas: the stopped segments are in the cancelled colour, and no pixel of any bar in the erred one.
    const px = await barPixels(page);
    expect(px.cancelled).not.toBe(px.erred);
    expect(px.cancelledMid.length).toBeGreaterThan(0);
    for (const c of px.cancelledMid) expect(c).toBe(px.cancelled);
    expect(px.erredPixels).toBe(0);
    expect(await page.getByTestId('results').getAttribute('data-digest')).toBe('');
  }, 180_000);

  it('after a run, deleting a node marks the result downstream of it stale', async () => {
    await setSize(page, '2000, 2000', '500, 500');
    await page.getByTestId('run').click();
    await expect.poll(() => status(page), { timeout: 90_000 }).toBe('finished');
    await expect.poll(() => pill(page, 'reduce')).toContain('done');
    await page.locator('.react-flow__node[data-id="scalar_op"] .gf-node-title').click();
    await page.keyboard.press('Delete');
    await expect.poll(() => page.locator('.react-flow__node[data-id="scalar_op"]').count()).toBe(0);
    await expect.poll(() => pill(page, 'reduce')).toContain('stale');
    expect(await page.locator('.react-flow__node[data-id="reduce"] .gf-node').getAttribute('data-state')).toBe('stale');
    // And the list says why the graph cannot run as it is now.
    expect(await page.locator('[data-testid="problem"][data-node="slice"]').textContent()).toContain('required array input is not connected');
  }, 120_000);

  it('compares a run with its replay: digests equal, the values decoded side by side, both task streams', async () => {
    await page.getByTestId('view-history').click();
    await expect.poll(() => page.locator('tr[data-run]').count()).toBeGreaterThan(0);
    const ids = async () => (await page.locator('tr[data-run]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-run'))))).sort((x, y) => x - y);
    // The last run is the finished one of the step before (the graph has changed since: Replay runs its own workflow).
    const last = Math.max(...(await ids()));
    expect(await page.locator(`tr[data-run="${last}"] td`).nth(3).textContent()).toBe('done');
    await page.locator(`tr[data-run="${last}"]`).getByRole('button', { name: 'Replay' }).click();
    await expect.poll(() => status(page), { timeout: 90_000 }).toBe('finished');
    // The replayed workflow is back in the editor: the deleted node too.
    await expect.poll(() => page.locator('.react-flow__node[data-id="scalar_op"]').count()).toBe(1);
    await page.getByTestId('view-history').click();
    await expect.poll(async () => Math.max(...(await ids()))).toBe(last + 1);
    expect(await page.locator(`tr[data-run="${last + 1}"] td`).nth(7).textContent()).toBe(`#${last}`);
    await page.getByLabel(`compare run ${last}`).check();
    await page.getByLabel(`compare run ${last + 1}`).check();
    await page.getByTestId('compare').click();
    const cmp = page.getByTestId('comparison');
    await cmp.waitFor();
    expect(await cmp.textContent()).toContain('digests equal');
    const scalar = page.getByTestId('compare-scalar-reduce');
    await scalar.waitFor();
    expect(await scalar.textContent()).toMatch(new RegExp(`#${last} .+ · #${last + 1} .+`));
    expect(Number(await scalar.getAttribute('data-diff'))).toBe(0);
    expect(await page.locator('body').textContent()).not.toMatch(/[A-Za-z0-9+/]{120}/);
    // The two runs' task streams, one above the other, each titled with its time and drawn in colour.
    await page.getByTestId('compare-streams').waitFor();
    const top = (await page.getByTestId(`compare-stream-${last}`).boundingBox())!;
    const below = (await page.getByTestId(`compare-stream-${last + 1}`).boundingBox())!;
    expect(below.y).toBeGreaterThanOrEqual(top.y + top.height);
    expect(await page.getByTestId('compare-streams').locator('.gf-panel-head strong').allTextContents()).toEqual([
      expect.stringMatching(new RegExp(`^#${last} · [\\d.]+ (ms|s) · \\d+ tasks`)),
      expect.stringMatching(new RegExp(`^#${last + 1} · [\\d.]+ (ms|s) · \\d+ tasks`)),
    ]);
    for (const id of [last, last + 1]) expect(Object.keys(JSON.parse((await page.getByTestId(`compare-stream-${id}`).getAttribute('data-ops')) ?? '{}'))).toContain('normal+add+slice+sum');
  }, 180_000);

  it('benchmarks the workflow: configuration, progress and its current run drawn while it runs, then Cancel stops it', async () => {
    // Repetitions of about a second on one core: at 2000² each took a few ms, so a configuration
    // spent most of its time starting workers, and on a loaded CI machine (0efb8a7) the late page
    // below never caught one mid-repetition within 60 s. Cancel ends the benchmark either way.
    await page.getByTestId('view-editor').click();
    await setSize(page, '8000, 8000', '1000, 1000');
    await page.getByTestId('view-benchmarks').click();
    // Long enough that it is still going when the late page loads and when Cancel is clicked (3
    // repetitions ended first on a loaded CI machine); Cancel ends it either way.
    // More than serve takes (BENCH_MAX_REPEAT) stops at the bound rather than failing at Start.
    await page.getByLabel('repeat').fill('100');
    await expect.poll(() => page.getByLabel('repeat').inputValue()).toBe('50');
    await page.getByLabel('repeat').fill('20');
    await page.getByLabel('warm-up').fill('0');
    await page.getByTestId('start-bench').click();
    const step = page.getByTestId('bench-live-step');
    await step.waitFor({ timeout: 60_000 });
    expect(await step.textContent()).toMatch(/configuration \d of \d · (starting workers|warm-up|repetition)/);
    expect(await page.getByTestId('bench-live-time').textContent()).toMatch(/so far/);
    // Its current run's tasks are on the benchmark's own stream, in the op's colour.
    // Items and ops read in one go: between two configurations the stream is cleared.
    await expect
      .poll(
        () =>
          page.evaluate(() => {
            const canvas = document.querySelector('[data-testid="bench-stream"]');
            const ops = Object.keys(JSON.parse(canvas?.getAttribute('data-ops') ?? '{}') as Record<string, number>);
            return Number(canvas?.getAttribute('data-items') ?? 0) > 0 && ops.includes('normal+add+slice+sum');
          }),
        { timeout: 60_000, interval: 100 },
      )
      .toBe(true);
    // A page opened now (another window, or this one reloaded) shows the benchmark with its current run drawn, not "starting workers".
    const late = await app.browser.newPage({ viewport: { width: 1280, height: 720 } });
    try {
      await late.goto(app.server.url);
      await late.getByTestId('view-benchmarks').click();
      // Read together: between two configurations the stream is cleared while "starting workers" shows.
      const drawnNow = () =>
        late.evaluate(() => {
          const canvas = document.querySelector('[data-testid="bench-stream"]');
          return {
            items: Number(canvas?.getAttribute('data-items') ?? 0),
            ops: Object.keys(JSON.parse(canvas?.getAttribute('data-ops') ?? '{}') as Record<string, number>),
            step: document.querySelector('[data-testid="bench-live-step"]')?.textContent ?? '',
          };
        });
      // The last state read goes into the failure message: which part never came.
      let seen = '';
      try {
        await expect
          .poll(async () => {
            const d = await drawnNow();
            seen = JSON.stringify(d);
            return d.items > 0 && d.ops.includes('normal+add+slice+sum') && /configuration \d of \d · (warm-up|repetition)/.test(d.step);
          }, { timeout: 60_000, interval: 100 })
          .toBe(true);
      } catch (e) {
        throw new Error(`the late page did not draw the running benchmark; last read: ${seen}`, { cause: e });
      }
    } finally {
      await late.close();
    }
    await page.getByTestId('cancel-bench').click();
    await expect.poll(() => page.getByTestId('bench-live').count(), { timeout: 60_000 }).toBe(0);
    expect(await page.getByTestId('bench-error').textContent()).toContain('benchmark stopped');
  }, 180_000);

  it('runs the tuning example: its trials are drawn running, labelled with their epoch, before the search ends', async () => {
    await page.getByTestId('view-editor').click();
    await page.getByTestId('examples').selectOption('tuning: random search');
    await page.locator('.react-flow__node[data-id="search"]').waitFor();
    await page.getByTestId('run').click();
    const stream = page.getByTestId('task-stream');
    const running = async () => Object.values(JSON.parse((await stream.getAttribute('data-running')) ?? '{}') as Record<string, number>).reduce((a, b) => a + b, 0);
    // Drawn as they start, not when they end: running trials on the stream while the search is still running.
    await expect.poll(running, { timeout: 60_000, interval: 100 }).toBeGreaterThan(0);
    expect(await status(page)).toBe('running');
    // The search node reads running while its trials train (not waiting, as before).
    await expect.poll(() => pill(page, 'search'), { timeout: 60_000, interval: 100 }).toContain('running');
    // Each trial's progress line is written on its running task ("trial t3 · epoch 2 of 4").
    await expect.poll(async () => JSON.parse((await stream.getAttribute('data-progress')) ?? '[]') as string[], { timeout: 60_000, interval: 100 }).toContainEqual(expect.stringMatching(/^trial \S+ · epoch \d+ of 4$/));
    await expect.poll(() => status(page), { timeout: 240_000, interval: 1000 }).toBe('finished');
    await page.getByTestId('search-result').waitFor();
  }, 300_000);
});
