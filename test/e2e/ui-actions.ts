/** The editor gestures the e2e files share: palette drops, port connections, inspector fields, deselecting. */
import type { Page } from 'playwright-core';

export async function dropFromPalette(page: Page, op: string, x: number, y: number) {
  await page.locator(`[data-op="${op}"]`).dragTo(page.getByTestId('graph-canvas'), { targetPosition: { x, y } });
  await page.locator(`.react-flow__node[data-id="${op}"]`).waitFor();
}

export async function setParam(page: Page, node: string, name: string, value: string) {
  await page.locator(`.react-flow__node[data-id="${node}"] .gf-node-title`).click();
  const field = page.locator(`#param-${node}-${name}`);
  await field.fill(value, { timeout: 5000 });
  await field.press('Enter');
}

/** Clicks empty canvas so no node is selected (a selected node dims other nodes' tasks). */
export const deselect = (page: Page) => page.locator('.react-flow__pane').click({ position: { x: 600, y: 20 } });

/** A command of the toolbar's File menu (new, open, save, save-as): opens the menu, clicks the item. */
export async function fileCommand(page: Page, item: 'new' | 'open' | 'save' | 'save-as') {
  await page.locator('[data-testid="file-menu"] > summary').click();
  await page.getByTestId(item).click();
}

/** Drags from one node's output handle to another's input handle, as a person connects ports. */
export async function connect(page: Page, from: string, out: string, to: string, inp: string) {
  const a = await page.locator(`.react-flow__node[data-id="${from}"] .react-flow__handle.source[data-handleid="${out}"]`).boundingBox();
  const b = await page.locator(`.react-flow__node[data-id="${to}"] .react-flow__handle.target[data-handleid="${inp}"]`).boundingBox();
  if (!a || !b) throw new Error(`handles ${from}.${out} / ${to}.${inp} not on screen`);
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
  await page.mouse.up();
}
