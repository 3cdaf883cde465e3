/**
 * Editor extras in Debian's Chromium against `gpuflow serve --virtual-gpus 3`: the minimap draws
 * one rectangle per node; two nodes grouped into a frame move together when the frame is dragged,
 * the group survives save / reload / open and ungroup is undoable; after a run the workers panel
 * shows a utilisation series per worker, busy on every worker the task stream shows tasks on.
 * Writes docs/screenshots/workers-panel.png.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowDoc } from '../../common/workflow';
import { type App, browserMissing, openApp, ROOT, type Server } from './harness';
import { dropFromPalette, fileCommand, setParam } from './ui-actions';

const skip = browserMissing();
const SHOTS = path.join(ROOT, 'docs/screenshots');

async function box(page: Page, selector: string) {
  const b = await page.locator(selector).boundingBox();
  if (!b) throw new Error(`${selector} is not on screen`);
  return b;
}

async function saveDoc(page: Page, file: string): Promise<WorkflowDoc> {
  const [download] = await Promise.all([page.waitForEvent('download'), fileCommand(page, 'save')]);
  await download.saveAs(file);
  return JSON.parse(readFileSync(file, 'utf8')) as WorkflowDoc;
}

const pos = (doc: WorkflowDoc, id: string) => doc.nodes.find((n) => n.id === id)!.position!;

describe.skipIf(skip)('editor extras in the browser', () => {
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

  it('minimap draws one rectangle per node', async () => {
    await dropFromPalette(page, 'random_normal', 60, 140);
    await dropFromPalette(page, 'reduce', 420, 140);
    await expect.poll(() => page.locator('.react-flow__minimap-node').count()).toBe(2);
    // The connection still works with measured sizes kept (xyflow keeps the handles it measured).
    const a = await box(page, '.react-flow__node[data-id="random_normal"] .react-flow__handle.source[data-handleid="out"]');
    const b = await box(page, '.react-flow__node[data-id="reduce"] .react-flow__handle.target[data-handleid="x"]');
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);
  });

  it('groups two nodes, moves them with the frame, and keeps the group through save and open', async () => {
    await page.locator('.react-flow__node[data-id="random_normal"] .gf-node-title').click();
    await page.locator('.react-flow__node[data-id="reduce"] .gf-node-title').click({ modifiers: ['Shift'] });
    await page.getByTestId('group-selection').click();
    const frame = page.locator('.gf-group');
    await expect.poll(() => frame.count()).toBe(1);
    expect((await frame.getAttribute('data-members'))!.split(',').sort()).toEqual(['random_normal', 'reduce']);
    await expect.poll(() => page.locator('.react-flow__minimap-node').count()).toBe(3);

    const dir = path.dirname(server.db);
    const before = await saveDoc(page, path.join(dir, 'before.json'));
    expect(before.groups).toHaveLength(1);

    // Drag the frame by its title: both members follow by the same offset as the frame.
    const frameBox = () => box(page, '.react-flow__node[data-id="group:g1"]');
    const f0 = await frameBox();
    const t = await box(page, '.gf-group-title');
    await page.mouse.move(t.x + 20, t.y + t.height / 2);
    await page.mouse.down();
    await page.mouse.move(t.x + 80, t.y + t.height / 2 + 40, { steps: 6 });
    await page.mouse.move(t.x + 140, t.y + t.height / 2 + 80, { steps: 6 });
    await page.mouse.up();
    const f1 = await frameBox();
    const after = await saveDoc(page, path.join(dir, 'after.json'));
    const g0 = before.groups![0], g1 = after.groups![0];
    const dx = g1.position.x - g0.position.x, dy = g1.position.y - g0.position.y;
    // It moved (xyflow starts the drag a step after the press, so not quite the mouse's 120 x 80)...
    expect(dx).toBeGreaterThan(60);
    expect(dy).toBeGreaterThan(30);
    // ...and the file says what the screen shows (zoom 1: flow units are pixels).
    expect(Math.abs(f1.x - f0.x - dx)).toBeLessThanOrEqual(1);
    expect(Math.abs(f1.y - f0.y - dy)).toBeLessThanOrEqual(1);
    for (const id of ['random_normal', 'reduce']) {
      expect(pos(after, id).x - pos(before, id).x).toBeCloseTo(dx, 6);
      expect(pos(after, id).y - pos(before, id).y).toBeCloseTo(dy, 6);
    }
    // The frame still holds its members (it refits when a member's size changes, e.g. a new state line).
    for (const id of ['random_normal', 'reduce']) {
      expect(pos(after, id).x).toBeGreaterThan(g1.position.x);
      expect(pos(after, id).y).toBeGreaterThan(g1.position.y);
      expect(pos(after, id).x).toBeLessThan(g1.position.x + g1.size.width);
      expect(pos(after, id).y).toBeLessThan(g1.position.y + g1.size.height);
    }

    // Ungroup, then undo: the frame comes back.
    await page.locator('.gf-group-title').click();
    await page.getByTestId('ungroup-selection').click();
    await expect.poll(() => frame.count()).toBe(0);
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => frame.count()).toBe(1);
    // The same by keyboard: a member selected, Ctrl+Shift+G ungroups, Ctrl+Z brings the frame back.
    await page.locator('.react-flow__node[data-id="reduce"] .gf-node-title').click();
    await page.keyboard.press('Control+Shift+G');
    await expect.poll(() => frame.count()).toBe(0);
    await page.keyboard.press('Control+Z');
    await expect.poll(() => frame.count()).toBe(1);

    // A reload keeps the frame (autosave); New empties the canvas so Open is seen to bring it back.
    await page.reload();
    await page.locator('[data-op="random_normal"]').waitFor();
    await expect.poll(() => frame.count()).toBe(1);
    await fileCommand(page, 'new');
    await expect.poll(() => frame.count()).toBe(0);
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), fileCommand(page, 'open')]);
    await chooser.setFiles(path.join(dir, 'after.json'));
    await expect.poll(() => frame.count()).toBe(1);
    // Members inside the frame on screen (polled: validation may add an error line to a node,
    // and the frame refits one render later).
    const outside = async () => {
      const f = await box(page, '.react-flow__node[data-id="group:g1"]');
      const out: string[] = [];
      for (const id of ['random_normal', 'reduce']) {
        const n = await box(page, `.react-flow__node[data-id="${id}"]`);
        if (n.x < f.x || n.y < f.y || n.x + n.width > f.x + f.width + 1 || n.y + n.height > f.y + f.height + 1) out.push(id);
      }
      return out;
    };
    await expect.poll(outside).toEqual([]);
    await expect.poll(() => page.locator('.react-flow__minimap-node').count()).toBe(3);
  });

  it('shows a utilisation series per worker after a run, busy where tasks ran', async () => {
    await setParam(page, 'random_normal', 'shape', '3000, 3000');
    await setParam(page, 'random_normal', 'chunks', '500, 500');
    await page.getByTestId('run').click();
    await expect.poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: 60_000 }).toBe('finished');
    const lanes = JSON.parse((await page.getByTestId('task-stream').getAttribute('data-lane-counts')) ?? '{}') as Record<string, number>;
    const workers = await page.locator('[data-worker]').evaluateAll((els) => els.map((e) => e.getAttribute('data-worker')!));
    expect(workers.sort()).toEqual(['cpu0', 'vgpu0', 'vgpu1', 'vgpu2']);
    const ran = workers.filter((w) => (lanes[w] ?? 0) > 0);
    expect(ran.length).toBeGreaterThan(0);
    // Every worker has a series; each one that ran tasks shows busy time in it.
    await expect
      .poll(
        async () => {
          const out: string[] = [];
          for (const w of workers) {
            const svg = page.getByTestId(`util-series-${w}`);
            const points = Number(await svg.getAttribute('data-points'));
            const peak = Number(await svg.getAttribute('data-peak'));
            if (points < 2) out.push(`${w}: ${points} points`);
            if (ran.includes(w) && !(peak > 0)) out.push(`${w}: no busy time`);
            if ((await svg.locator('polyline').count()) !== 1) out.push(`${w}: no line`);
          }
          return out;
        },
        { timeout: 20_000 },
      )
      .toEqual([]);
    for (const w of workers) expect(await page.getByTestId(`mem-series-${w}`).locator('line').count()).toBe(1);
    // The run is over, so a later sample of every worker is idle again (and the chart shows the run whole).
    await expect
      .poll(async () => Promise.all(workers.map(async (w) => Number(await page.getByTestId(`util-series-${w}`).getAttribute('data-last')))), { timeout: 20_000 })
      .toEqual(workers.map(() => 0));
    await page.screenshot({ path: path.join(SHOTS, 'workers-panel.png') });
  });
});
