/** The editor gestures the e2e files share: palette drops, inspector fields, deselecting. */
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
